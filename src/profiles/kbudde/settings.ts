/** What only the kbudde naming profile reads (`kbudde:` in the config; kbudde's RABBIT_CONNECTION and EXCLUDE_METRICS). */
export interface KbuddeSettings {
  connection: 'direct' | 'loadbalancer';
  /** Management API field keys whose families are left out. */
  excludeMetrics: string[];
}
