import { z } from 'zod';
import { certificateMetrics as M } from './metrics.js';
import { expiryDates } from './expiry-dates.js';
import { metricsOf } from '../../model/metric-def.js';
import type { Collector } from '../kit/collector.js';
import { logOnce } from '../kit/log-once.js';
import { getRemembered } from '../kit/optional-requests.js';

const options = z.strictObject({
  /**
   * The check's window, in years: every certificate expiring within it is listed, so it must be
   * longer than any certificate lives. The answer is as cheap as the check's ordinary one.
   */
  window_years: z.number().int().min(1).max(1000).default(100),
});

export const certificatesCollector: Collector<z.infer<typeof options>> = {
  name: 'certificates',
  description:
    'GET /api/health/checks/certificate-expiration/{window_years}/years: its 503 answer lists every TLS listener of the node that answers with the expiry dates of its certificate and CA files.',
  defaultEnabled: false,
  // Certificates change on deployments, not between polls: 2 minutes at the default poll.interval.
  // At most 8: with the longest poll.interval (1d) its max_age (3 intervals) stays within the longest duration allowed.
  defaultIntervalMultiplier: 8,
  lane: 'health',
  optionsSchema: options,
  metrics: metricsOf(M),
  async collect(ctx) {
    const path = `/api/health/checks/certificate-expiration/${ctx.options.window_years}/years`;
    // 503 is the check failing: its body is the list wanted here.
    const answer = await getRemembered<unknown>(ctx, { path, absentMeans: 'the broker has no certificate-expiration health check', limits: { answerStatuses: [503] } });
    if (!answer.ok) return;
    const { dates, unreadable, listeners } = expiryDates(answer.body);
    for (const d of dates) ctx.sink.add(M.expiry, { node: d.node, protocol: d.protocol, interface: d.interface, port: d.port, file: d.file }, d.expiresAt);
    const node = dates[0]?.node ?? ctx.broker.node ?? '';
    ctx.sink.add(M.listeners, { node }, listeners);
    for (const u of unreadable) logOnce(ctx, 'warn', `unreadable ${u.node} ${u.port} ${u.file}`, { ...u }, 'the broker could not read the expiry date of a listener\'s certificate file');
  },
};
