import type { NamingProfileName, ProfileSettingsInForce, ProfileVariables } from '../profiles/profiles.js';
import type { ShardConfig } from '../model/shard-assignment.js';

/** The resolved configuration: what loadConfig() returns and the rest of the exporter reads. */

/** How one broker is reached: its name, URL, credentials, TLS, timeouts and limits (the file's `target:` or an entry of `targets:`). */
export interface BrokerConnectionConfig {
  name: string;
  /** Without credentials: they are in username and password. */
  url: string;
  username: string;
  password: string;
  /** Where the password came from, for the start-up log (never the password itself). */
  passwordSource: string;
  /** Other credentials met on the way, redacted like the password: one given in the URL but overridden. */
  otherSecrets: string[];
  tls: { ca?: Buffer; cert?: Buffer; key?: Buffer; insecureSkipVerify: boolean; caFile?: string; certFile?: string; keyFile?: string };
  timeouts: { connectMs: number; headersMs: number; bodyMs: number; totalMs: number };
  maxResponseBytes: number;
  maxConcurrentRequests: number;
}

export interface CollectorConfig {
  name: string;
  enabled: boolean;
  intervalMs: number;
  timeoutMs: number;
  maxAgeMs: number;
  /**
   * collectors.<name>.poll_thread: its polls run in the poll thread, not on the main thread, once
   * one of its polls served this many series (0: from the first; unset: never).
   */
  pollThreadFromSeries?: number;
  options: Record<string, unknown>;
}

/** The HTTP server's deadlines and bound (see web in config.example.yaml). */
export interface WebLimits {
  readTimeoutMs: number;
  writeTimeoutMs: number;
  idleTimeoutMs: number;
  maxConcurrentScrapes: number;
  maxConnections: number;
}

export interface PollConfig {
  intervalMs: number;
  jitter: number;
  backoffMaxMs: number;
}

/** What one polled broker is made from: a difference in any of it restarts that target. */
export interface TargetSetup {
  target: BrokerConnectionConfig;
  poll: PollConfig;
  collectors: CollectorConfig[];
  /** Which part of the target this replica serves (absent: all of it). */
  sharding?: ShardConfig;
  /** The names its families are served under (absent: native). */
  naming?: NamingProfileName;
  /** Each naming profile's settings (its section of the file); the chosen profile's apply. */
  profiles?: ProfileSettingsInForce;
}

export interface ExporterConfig {
  configFile?: string;
  /** web.listen_address / --web.listen-address: every address served, at least one. */
  listenAddresses: string[];
  web: WebLimits;
  telemetryPath: string;
  /** web.per_node_scrapes: the telemetry path serves the exporter's own series only (each target's are on /probe, each node's too). */
  perNodeScrapes: boolean;
  logLevel: string;
  logFormat: 'json' | 'logfmt';
  /** A lasting poll failure is logged again this often (log.failure_reminder). */
  logFailureReminderMs: number;
  /** The top level's target, poll and collectors: the one target without a `targets:` list, else what its entries fall back to. */
  poll: PollConfig;
  target: BrokerConnectionConfig;
  collectors: CollectorConfig[];
  /** The brokers polled, in the order configured: the top level's one target, or the entries of `targets:`. */
  targets: TargetSetup[];
  /** This replica's shard among --total-shards (0 of 1: everything). */
  sharding: ShardConfig;
  /** The naming profile (`naming`, --naming, EXPORTER_NAMING): which names the families are served under. */
  naming: NamingProfileName;
  /** Each naming profile's settings (its section of the file, or its variables); the chosen profile's apply. */
  profiles: ProfileSettingsInForce;
  /** Each profile's environment variables read (chosen profile without a config file), or set but left unread (a config file wins, or the profile is off). */
  profileVariables?: ProfileVariables;
}
