/**
 * Removes the target's credentials from any text the exporter surfaces: an upstream (a proxy, a
 * gateway) may quote the request, Authorization header included, in the answers the exporter
 * turns into error messages, log lines and the landing page.
 *
 * For each secret (the password, a password dropped from the URL, key material) it removes the
 * secret itself, the `username:secret` pair, the pair's base64 (what follows `Basic `: standard,
 * unpadded and URL-safe), and the URL-encoded (encodeURIComponent, form `+`, lower-case hex) and
 * JSON-escaped forms of each. A form of MIN_ANYWHERE characters or more is removed wherever it
 * appears; a shorter one only where it stands alone (not touching a letter or a digit), so a
 * password `a` does not eat every `a`. A secret equal to the username is not removed alone (the
 * username is shown on purpose, and hiding it would tell that it is the password); its pair and
 * base64 forms are.
 */
export const REDACTED = '<redacted>';

/** Forms at least this long are removed wherever they appear; shorter ones as whole tokens only. */
export const MIN_ANYWHERE = 8;

/** Default length of an excerpt of an answer in an error message. */
export const EXCERPT_CHARS = 200;

export interface Credentials {
  username: string;
  /** Passwords (and tokens): each in every form above. Empty strings are ignored. */
  secrets: readonly string[];
  /** Other secret text (a private key's lines): removed as it is, URL-encoded or JSON-escaped. */
  material?: readonly string[];
}

export class Redactor {
  private readonly pattern: RegExp | undefined;
  private readonly forms: readonly string[];

  /**
   * Several credentials (one per target, for the log's last guard): each is removed as above.
   * Alike ones are encoded once: a fleet's 10,000 targets mostly log in alike.
   */
  constructor(all: Credentials | readonly Credentials[]) {
    const forms = new Set<string>();
    const distinct = new Map<string, Credentials>();
    for (const credentials of Array.isArray(all) ? (all as readonly Credentials[]) : [all as Credentials]) distinct.set(credentialsKey(credentials), credentials);
    for (const credentials of distinct.values()) this.addForms(credentials, forms);
    this.forms = [...forms].filter((f) => f !== '').sort((a, b) => b.length - a.length);
    const long = this.forms.filter((f) => [...f].length >= MIN_ANYWHERE).map(literal);
    const short = this.forms.filter((f) => [...f].length < MIN_ANYWHERE).map(literal);
    const parts = [...long, ...(short.length > 0 ? [`(?<![\\p{L}\\p{N}])(?:${short.join('|')})(?![\\p{L}\\p{N}])`] : [])];
    this.pattern = parts.length > 0 ? new RegExp(parts.join('|'), 'gu') : undefined;
  }

  private addForms(credentials: Credentials, forms: Set<string>): void {
    for (const secret of new Set(credentials.secrets)) {
      if (secret === '') continue;
      const pair = `${credentials.username}:${secret}`;
      const alone = secret === credentials.username ? [] : [secret];
      for (const text of [...alone, pair, `${encodeURIComponent(credentials.username)}:${encodeURIComponent(secret)}`]) {
        for (const form of encodedForms(text)) forms.add(form);
      }
      for (const b64 of base64Forms(pair)) {
        forms.add(b64);
        forms.add(encodeURIComponent(b64));
      }
    }
    for (const text of credentials.material ?? []) {
      if (text !== '') for (const form of encodedForms(text)) forms.add(form);
    }
  }

  /** The text with every known form of every secret replaced by `<redacted>`. */
  redact(text: string): string {
    return this.pattern ? text.replace(this.pattern, REDACTED) : text;
  }

  /**
   * One line of an answer for an error message or a page: redacted, whitespace collapsed, then
   * cut to maxChars (cut after redacting, so no secret is cut in half). `truncated` says the text
   * was already cut elsewhere (a byte cap): an end that could be the start of a secret is dropped.
   */
  excerpt(text: string, maxChars = EXCERPT_CHARS, truncated = false): string {
    let source = truncated ? this.dropSecretStart(text) : text;
    // Redacted before and after collapsing: a secret may hold runs of white space, and collapsing
    // may make one out of text that was not one.
    source = this.redact(this.redact(source).replace(/\s+/g, ' ').trim());
    const chars = [...source];
    return chars.length <= maxChars ? source : chars.slice(0, maxChars).join('');
  }

  /** The text without a trailing piece that begins some form (what a byte cap may have left of it). */
  private dropSecretStart(text: string): string {
    // A cap may cut a multi-byte character: the replacement character ends the text then.
    const end = text.replace(/\uFFFD+$/, '');
    let drop = 0;
    for (const form of this.forms) {
      for (let n = Math.min(form.length - 1, end.length); n > drop; n--) {
        if (end.endsWith(form.slice(0, n))) {
          drop = n;
          break;
        }
      }
    }
    return end.slice(0, end.length - drop);
  }
}

/** Equal for credentials whose forms are the same. */
export function credentialsKey(credentials: Credentials): string {
  return JSON.stringify([credentials.username, credentials.secrets, credentials.material ?? []]);
}

/** Redacts nothing: for code paths that hold no credentials (tests, tools). */
export const NO_SECRETS = new Redactor({ username: '', secrets: [] });

/** The text as it is, URL-encoded (component, form, lower-case hex) and JSON-escaped. */
function encodedForms(text: string): string[] {
  const component = encodeURIComponent(text);
  const form = new URLSearchParams({ x: text }).toString().slice(2);
  const json = JSON.stringify(text).slice(1, -1);
  const asciiJson = json.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const forms = [text, component, form, json, asciiJson];
  for (const encoded of [component, form]) forms.push(encoded.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()));
  return forms;
}

function base64Forms(text: string): string[] {
  const b64 = Buffer.from(text, 'utf8').toString('base64');
  return [b64, b64.replace(/=+$/, ''), Buffer.from(text, 'utf8').toString('base64url')];
}

function literal(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
