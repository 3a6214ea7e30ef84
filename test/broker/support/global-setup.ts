/**
 * vitest globalSetup of the `broker-<version>` projects (see vitest.config.ts and versions.ts).
 *
 * Starts ONE private RabbitMQ node of the project's version (test/harness/broker/broker.ts)
 * for the whole broker suite and provides its plain connection data as `inject('broker')`
 * (a BrokerInfo, or null when the suite is skipped). Teardown stops the node. For a chroot
 * version it first builds the root file system when none is cached (or when
 * BROKER_ROOTFS_REBUILD asks), and prints which package it runs (sid moves).
 *
 *   REQUIRE_BROKER=1  the suite is mandatory: a missing rabbitmq-server, or one
 *                     that fails to start, fails the run.
 *   otherwise         a missing rabbitmq-server prints one plain line to stderr
 *                     and provides `broker: null`, so describeWithBroker() skips.
 *                     An installed broker that fails to start still fails the run.
 */
import type { TestProject } from 'vitest/node';
import { brokerAvailability } from '../../harness/broker/availability.js';
import { startBroker, type BrokerHandle, type BrokerInfo } from '../../harness/broker/broker.js';
import { ensureRootfs, rootfsErlangVersion, rootfsRabbitVersion } from '../../harness/broker/rootfs.js';
import { brokerVersion } from '../../harness/broker/versions.js';
import { toolsRequired } from '../../support/required-tools.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection data of the private broker, or null when the broker suite is skipped. */
    broker: BrokerInfo | null;
  }
}


let handle: BrokerHandle | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const version = /^broker-(.+)$/.exec(project.name)?.[1];
  if (!version) throw new Error(`global-setup.ts serves projects named broker-<version>, not '${project.name}'`);
  const { suite } = brokerVersion(version);
  const avail = brokerAvailability(version);
  if (!avail.available) {
    if (toolsRequired()) {
      throw new Error(`REQUIRE_BROKER is set but the broker suite of RabbitMQ ${version} cannot run: ${avail.reason ?? 'rabbitmq-server unavailable'}`);
    }
    process.stderr.write(
      `\n*** broker suite of RabbitMQ ${version} SKIPPED: ${avail.reason ?? 'rabbitmq-server is not installed'} (set REQUIRE_BROKER=1 to make it mandatory; .ci/run installs it; BROKER_VERSIONS=3.10 runs one version) ***\n\n`,
    );
    project.provide('broker', null);
    return async () => {};
  }

  const t0 = Date.now();
  let from = 'the host package';
  if (suite) {
    ensureRootfs(suite, { allowRebuild: true });
    from = `Debian ${suite} package rabbitmq-server ${rootfsRabbitVersion(suite) ?? '?'}, erlang-base ${rootfsErlangVersion(suite) ?? '?'}, in a chroot`;
  }
  handle = await startBroker({ version });
  process.stderr.write(
    `[broker-${version}] RabbitMQ ${handle.version ?? '?'} (${from}) node ${handle.nodeName} ready in ${Date.now() - t0} ms ` +
      `(amqp ${handle.amqpPort}, management ${handle.managementPort}, prometheus ${handle.prometheusPort}, dir ${handle.dir})\n`,
  );
  project.provide('broker', handle.info);

  return async () => {
    const h = handle;
    handle = undefined;
    await h?.stop();
  };
}
