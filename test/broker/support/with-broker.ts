/**
 * Test-side access to the private broker started by global-setup.ts.
 *
 *   describeWithBroker(name, (broker) => { it(...) })
 *       describe.skipIf(!inject('broker')) + a BrokerHandle rebuilt in this
 *       worker from the provided plain data (ctl/stopApp/startApp/... spawn
 *       rabbitmqctl with the node's env and cookie). When the suite is skipped
 *       the callback still runs (vitest collects skipped suites) and receives a
 *       stub: data fields are placeholders (ports 0, 'http://127.0.0.1:0') and
 *       every method rejects — so building clients in the describe body is safe.
 *   getBroker(): BrokerHandle | null       the handle, or null when skipped
 *   brokerInfo(): BrokerInfo | null        the raw provided data
 */
import { describe, inject } from 'vitest';
import type { BrokerHandle, BrokerInfo } from '../../harness/broker/broker.js';
import { connectBroker } from '../../harness/broker/controller.js';
import type {} from './global-setup.js'; // ProvidedContext augmentation (type-only, not executed)

export type { BrokerHandle, BrokerInfo } from '../../harness/broker/broker.js';

export function brokerInfo(): BrokerInfo | null {
  return inject('broker') ?? null;
}

let cached: { info: BrokerInfo; handle: BrokerHandle } | undefined;

export function getBroker(): BrokerHandle | null {
  const info = brokerInfo();
  if (!info) return null;
  if (!cached || cached.info !== info) cached = { info, handle: connectBroker(info) };
  return cached.handle;
}

function unavailableBroker(): BrokerHandle {
  const fail = () => Promise.reject(new Error('no broker: the broker suite is skipped (rabbitmq-server not installed)'));
  const info: BrokerInfo = {
    nodeName: 'unavailable@localhost',
    host: '127.0.0.1',
    amqpPort: 0,
    managementPort: 0,
    prometheusPort: 0,
    streamPort: 0,
    distPort: 0,
    epmdPort: 0,
    managementUrl: 'http://127.0.0.1:0',
    prometheusUrl: 'http://127.0.0.1:0',
    amqpUrl: 'amqp://guest:guest@127.0.0.1:0',
    username: 'guest',
    password: 'guest',
    dir: '',
    logDir: '',
    pidFile: '',
    ctlBin: '',
    epmdBin: '',
    env: {},
    brokerVersion: '',
    launcher: [],
  };
  return {
    ...info,
    info,
    ctl: fail,
    plugins: fail,
    stopApp: fail,
    startApp: fail,
    stop: fail,
    waitForManagement: fail,
    logTail: () => '',
  };
}

/** A describe block that runs only when the private broker is available; `fn` gets its handle. */
export function describeWithBroker(name: string, fn: (broker: BrokerHandle) => void): void {
  const broker = getBroker();
  // The version in the name: the report says which broker each test ran on (sid moves).
  const title = broker ? `${name} [RabbitMQ ${broker.version ?? broker.brokerVersion}]` : name;
  describe.skipIf(!broker)(title, () => fn(broker ?? unavailableBroker()));
}
