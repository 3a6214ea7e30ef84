import type { BuildView, ProfileOwnSeries, ProfilePolls, ProfileTargetView } from '../../exposition/naming-profile.js';
import type { RenderedFamily } from '../../exposition/text-format.js';
import { SampleSink } from '../../exposition/sample-sink.js';
import { kbuddeModulesOf, type KbuddeModule } from './modules.js';
import { kbuddeExporterMetrics as K } from './own-metrics.js';

/** Each collector running on the target → the kbudde modules it carries (none for a collector kbudde had no module for). */
function modulesOf(view: ProfileTargetView): [string, KbuddeModule[]][] {
  return [...view.running].map(([collector, options]) => [collector, kbuddeModulesOf(collector, options)]);
}

export const kbuddeOwnSeries: ProfileOwnSeries = {
  /**
   * kbudde's rabbitmq_up: 1 only when the broker's self-description was read at the last poll and
   * no enabled module's collector failed its last poll (one not polled yet has not failed). kbudde
   * meant "every module of this scrape succeeded"; ours are background polls, so "last poll".
   */
  up(polls: ProfilePolls, view: ProfileTargetView): boolean {
    if (!polls.up) return false;
    for (const [collector, modules] of modulesOf(view)) {
      if (modules.length > 0 && polls.collectors.get(collector)?.lastSuccess === false) return false;
    }
    return true;
  },

  /**
   * rabbitmq_module_up and _scrape_duration_seconds per kbudde module, from its collector's last
   * poll; the duration, as in kbudde, only once the cluster and node are known. And kbudde's
   * rabbitmq_exporter_build_info, with the process-wide series.
   */
  families(target: { polls: ProfilePolls; view: ProfileTargetView } | undefined, withProcess: boolean, build: BuildView): RenderedFamily[] {
    const sink = new SampleSink();
    if (withProcess) sink.add(K.build, { version: build.version, revision: build.revision, branch: build.branch, builddate: build.buildDate }, 1);
    const broker = target?.view.broker();
    for (const [collector, modules] of target ? modulesOf(target.view) : []) {
      const state = target?.polls.collectors.get(collector);
      if (!state) continue;
      for (const module of modules) {
        const labels = { cluster: broker?.clusterName ?? '', node: broker?.node ?? '', module };
        if (state.lastSuccess !== undefined) sink.add(K.moduleUp, labels, state.lastSuccess ? 1 : 0);
        if (broker && state.lastDurationSeconds !== undefined) sink.add(K.moduleDuration, labels, state.lastDurationSeconds);
      }
    }
    return sink.finish();
  },
};
