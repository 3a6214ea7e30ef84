import { z } from 'zod';
import type { ProfileSettings } from '../profile-settings.js';
import { KBUDDE_LOGIN_FILES, KBUDDE_VARIABLES, kbuddeStartupWarnings, putKbuddeEnvironment } from './environment.js';
import { excludedFamilies } from './exclusions.js';

/** What only the kbudde naming profile reads (`kbudde:` in the config; kbudde's RABBIT_CONNECTION and EXCLUDE_METRICS). */
export interface KbuddeSettings {
  connection: 'direct' | 'loadbalancer';
  /** Management API field keys whose families are left out. */
  excludeMetrics: string[];
}

/** The config file's `kbudde:` section (set from kbudde's RABBIT_CONNECTION and EXCLUDE_METRICS, or there). */
const kbuddeSection = z
  .strictObject({
    /** loadbalancer: the `self` label is "lb" on every series, as kbudde's RABBIT_CONNECTION=loadbalancer made it. */
    connection: z.enum(['direct', 'loadbalancer']).default('direct'),
    /** Management API field keys (recv_oct, message_stats.publish) whose families are not served, as kbudde's EXCLUDE_METRICS. */
    exclude_metrics: z.array(z.string().regex(/^[A-Za-z0-9_.-]+$/, 'must be a field key such as message_stats.publish')).default([]),
  })
  .prefault({});

/** The kbudde profile's part of the configuration: its section, kbudde's environment variables, its log lines. */
export const kbuddeSettings: ProfileSettings<typeof kbuddeSection, KbuddeSettings> = {
  section: kbuddeSection,
  resolve: (section) => ({ connection: section.connection, excludeMetrics: section.exclude_metrics }),
  variables: KBUDDE_VARIABLES,
  secretFileVariables: KBUDDE_LOGIN_FILES,
  putEnvironment: putKbuddeEnvironment,
  startupWarnings: kbuddeStartupWarnings,
  redactedView: (settings, seen) => ({ kbudde: settings, kbuddeVariablesRead: seen?.read ?? [] }),
  startingFields: (seen) => ({ kbudde_variables_read: seen?.read ?? [] }),
  seriesOptions: (settings) => ({
    loadBalanced: settings.connection === 'loadbalancer',
    excluded: (metrics) => excludedFamilies(metrics, settings.excludeMetrics),
  }),
};
