import type { RenderedFamily } from '../exposition/text-format.js';
import type { NamingProfileName } from '../profiles/profiles.js';
import type { ProfileTargetView } from '../exposition/naming-profile.js';
import { exporterFamilies, type ClientCounters, type HttpCounters } from './own-series.js';

import { Exposition, type Format } from '../exposition/exposition.js';
import { NodeShares } from './node-share.js';
import type { TargetState } from './target-state.js';

/** Families of the exporter process rather than of a target (Node's metrics, the reload status). */
export interface ProcessFamilies {
  families(): Promise<RenderedFamily[]>;
  /**
   * Whether a target's snapshot carries them and the exporter's process-wide series: yes while it
   * is the only target (the default); with several, /metrics serves them once and /probe a target's own.
   */
  inTargetSnapshots?(): boolean;
}

/** Polls that finish within this time of each other share one re-assembly. */
const COALESCE_MS = 100;

/**
 * Assembles the Exposition served on /metrics from the target's collector parts, the
 * exporter's own series and the process metrics. Once the target has been scraped, it builds the
 * next one in the background after polls, compresses it in the format scrapers last asked for
 * with gzip (if any did), and only then publishes it: a scrape meanwhile gets the previous one at
 * once. A target nobody scraped yet (most of a fleet behind /probe) builds nothing in the
 * background: its first scrape waits for a build of the current state. A scrape never gets data past their
 * maximum age: an exposition holding such data is rebuilt before it is served. Ages are measured
 * on the monotonic clock (performance.now()), so a step of the wall clock withdraws nothing.
 */
export class SnapshotStore {
  private published: { exposition: Exposition; version: number } | undefined;
  private building: Promise<Exposition> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  /** What scrapers want compressed: prepared before publishing; undefined until one asks for gzip. */
  private preferredGzip: Format | undefined;
  /** A scrape asked for this target: from then on, polls are followed by a build in the background. */
  private scraped = false;
  /** Each published exposition's own part and collector parts, for its nodes' shares. */
  private readonly partsOf = new WeakMap<Exposition, { own: readonly RenderedFamily[]; collectors: readonly (readonly RenderedFamily[])[] }>();
  private readonly nodeShares = new NodeShares();

  constructor(
    private readonly target: TargetState,
    private readonly client: ClientCounters,
    private readonly http: HttpCounters,
    private readonly processMetrics: ProcessFamilies,
    private readonly onError: (error: unknown) => void = () => undefined,
    /** The names the exporter's own series are served under. */
    private readonly naming: NamingProfileName = 'native',
    /** What the naming profile's own series read of the target: its broker, the collectors that run. */
    private readonly profileView?: ProfileTargetView,
  ) {}

  /** The exposition of the current state (waits for a build if the state changed). */
  async current(now = performance.now()): Promise<Exposition> {
    const published = this.published;
    if (published && published.version === this.target.version && now < published.exposition.validUntil) return published.exposition;
    return this.rebuild();
  }

  /**
   * For a scrape: the published exposition while none of its data is past its maximum age,
   * even if a newer one is being prepared (that one follows within milliseconds).
   */
  async forScrape(gzipFormat?: Format, now = performance.now()): Promise<Exposition> {
    if (gzipFormat) this.preferredGzip = gzipFormat;
    const scrapedBefore = this.scraped;
    this.scraped = true;
    const published = this.published;
    if (published && now < published.exposition.validUntil) {
      if (published.version === this.target.version) return published.exposition;
      // Not kept up to date before its first scrape: what was published then may be polls old.
      if (scrapedBefore) {
        this.schedule();
        return published.exposition;
      }
    }
    return this.rebuild();
  }

  /** The cluster's nodes, as the collectors' families being served list them. */
  nodes(now = performance.now()): string[] {
    return this.nodeShares.nodes(this.freshParts(now));
  }

  /**
   * For a node target's scrape: the node's share of the exposition a scrape of the target gets
   * (node-share.ts); undefined when that exposition does not list the node.
   */
  async forNodeScrape(node: string, gzipFormat?: Format, now = performance.now()): Promise<Exposition | undefined> {
    const exposition = await this.forScrape(gzipFormat, now);
    const parts = this.partsOf.get(exposition);
    const share = parts && (await this.nodeShares.share(exposition, parts.collectors, node, this.profileView?.broker()?.clusterName ?? ''));
    if (share && gzipFormat) await share.gzip(gzipFormat);
    return share;
  }

  /** For a scrape of the target beside its node targets: what none of them serves (node-share.ts). */
  async forRestScrape(gzipFormat?: Format, now = performance.now()): Promise<Exposition> {
    const exposition = await this.forScrape(gzipFormat, now);
    const parts = this.partsOf.get(exposition);
    const rest = parts ? await this.nodeShares.rest(exposition, parts.own, parts.collectors) : exposition;
    if (gzipFormat) await rest.gzip(gzipFormat);
    return rest;
  }

  /**
   * Called after every poll: several polls finishing together share one build. Nothing before
   * the first scrape: 10,000 idle targets would each rebuild (and compress) after every failed
   * poll a snapshot nobody reads.
   */
  schedule(): void {
    if (this.timer || !this.scraped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.rebuild().catch(this.onError);
    }, COALESCE_MS);
    this.timer.unref?.();
  }

  /** Resolves once an exposition assembled after this call is published (e.g. after a reload). */
  async refresh(): Promise<void> {
    await this.building?.catch(() => undefined);
    await this.rebuild();
  }

  /** Builds, compresses and publishes; a call during a build asks for one more afterwards. */
  rebuild(): Promise<Exposition> {
    if (this.building) {
      this.again = true;
      return this.building;
    }
    this.building = this.buildAndPublish().finally(() => {
      this.building = undefined;
      if (this.again) {
        this.again = false;
        this.schedule();
      }
    });
    return this.building;
  }

  private async buildAndPublish(): Promise<Exposition> {
    const version = this.target.version;
    const withProcess = this.processMetrics.inTargetSnapshots?.() ?? true;
    const processFamilies = withProcess ? await this.processMetrics.families() : [];
    const now = performance.now();
    // One part per collector, the same array object until it polls again: its compression is reused.
    const own = [...exporterFamilies(this.target, this.client, this.http, now, withProcess, this.naming, this.profileView), ...processFamilies];
    const parts: (readonly RenderedFamily[])[] = [own];
    let validUntil = Infinity;
    const collectorParts: (readonly RenderedFamily[])[] = [];
    for (const state of this.target.collectors.values()) {
      if (!this.target.isFresh(state, now)) continue;
      collectorParts.push(state.families);
      validUntil = Math.min(validUntil, (state.lastSuccessMonotonicMs as number) + state.maxAgeMs + 1);
    }
    parts.push(...collectorParts);
    const exposition = new Exposition(parts, validUntil, Date.now());
    this.partsOf.set(exposition, { own, collectors: collectorParts });
    if (this.preferredGzip) await exposition.gzip(this.preferredGzip);
    this.published = { exposition, version };
    return exposition;
  }

  /** One part per collector whose families are fresh enough to serve, the same array object until it polls again. */
  private freshParts(now: number): (readonly RenderedFamily[])[] {
    const parts: (readonly RenderedFamily[])[] = [];
    for (const state of this.target.collectors.values()) if (this.target.isFresh(state, now)) parts.push(state.families);
    return parts;
  }
}
