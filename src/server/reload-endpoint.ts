import type { Request, Response } from 'express';

export type ReloadAnswer = { ok: true; restartRequired?: readonly string[] } | { ok: false; error: string };

/**
 * Content types a browser sends cross-site without asking first (an HTML form, or fetch in
 * no-cors mode): a POST carrying one of them may come from any page the operator visits.
 */
const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];

/**
 * POST /-/reload. A page on another site can make the operator's browser send a POST here (a
 * form needs no permission), and with auth off nothing else stops it; so a request that says it
 * comes from another origin (`Origin`, `Sec-Fetch-Site`) or carries a form's content type is
 * refused with 403. curl, Prometheus' tooling and scripts send none of these.
 */
export function reloadEndpoint(reload: () => Promise<ReloadAnswer>) {
  return async (req: Request, res: Response): Promise<void> => {
    const refusal = crossSite(req);
    if (refusal) {
      res.status(403).type('text/plain').send(`configuration not reloaded: ${refusal}; POST /-/reload from the exporter's own origin, or without a browser (e.g. curl -X POST)\n`);
      return;
    }
    const outcome = await reload();
    if (!outcome.ok) {
      res.status(500).type('text/plain').send(`configuration not reloaded; the running one stays in force:\n${outcome.error}\n`);
      return;
    }
    const pending = outcome.restartRequired ?? [];
    res
      .type('text/plain')
      .send(pending.length === 0 ? 'configuration reloaded\n' : `configuration reloaded, except what only a restart applies: ${pending.join(', ')} keep their running values until the exporter restarts\n`);
  };
}

/** Why the request looks cross-site, or undefined when it does not. */
function crossSite(req: Request): string | undefined {
  const origin = req.get('origin');
  if (origin !== undefined) {
    let host: string | undefined;
    try {
      host = new URL(origin).host;
    } catch {
      host = undefined;
    }
    if (host === undefined || host !== req.get('host')) return `the request comes from another origin (Origin: ${JSON.stringify(origin.slice(0, 100))})`;
  }
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `the request comes from another site (Sec-Fetch-Site: ${JSON.stringify(site.slice(0, 20))})`;
  const type = (req.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (FORM_TYPES.includes(type)) return `a form's content type (${type}) is what another site's page can send`;
  return undefined;
}
