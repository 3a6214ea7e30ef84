/** A configuration that cannot be used: start-up stops with this message and exit code 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
