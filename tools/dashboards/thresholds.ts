/**
 * Every threshold of the alert rules, in one place. Change a value here and run
 * `npm run dashboards`; the runbook's threshold table is generated from this list.
 */
export interface Threshold {
  readonly value: number | string;
  readonly doc: string;
}

export const thresholds = {
  exporterDownFor: { value: '5m', doc: 'How long Prometheus must fail to scrape the exporter before RabbitmqExporterDown fires.' },
  brokerUnreachableFor: { value: '2m', doc: 'How long rabbitmq_up must be 0 before RabbitmqBrokerUnreachable fires.' },
  collectorFailingFor: { value: '10m', doc: 'How long a collector\'s polls must keep failing before RabbitmqCollectorFailing fires.' },
  collectorDataWithdrawnFor: {
    value: '5m',
    doc: 'How long a collector\'s series must stay withdrawn before RabbitmqCollectorDataWithdrawn fires. One failed poll can withdraw them (a slow poll ends past max_age) until the next success, an interval or two later (up to 2 min for the 4 × poll.interval collectors, with the backoff): longer than that, so one failed poll never fires it.',
  },
  nodeDownFor: { value: '2m', doc: 'How long a node must be down before RabbitmqNodeDown fires.' },
  alarmWindow: { value: '1m', doc: 'RabbitmqMemoryAlarm and RabbitmqDiskAlarm see an alarm raised at any sample of this window, so an alarm that clears and comes back within it counts as one that lasts.' },
  alarmFor: {
    value: '2m',
    doc: 'How long an alarm must last (with gaps shorter than alarmWindow) before RabbitmqMemoryAlarm or RabbitmqDiskAlarm fires. Longer than alarmWindow plus a poll, so an alarm seen at one poll only (memory at the watermark until the next garbage collection) does not page; one that lasts or keeps coming back does.',
  },
  memoryPredictWindow: { value: '1h', doc: 'Past memory use RabbitmqMemoryPredictedToRunOut extrapolates from.' },
  memoryPredictHorizonSeconds: { value: 4 * 3600, doc: 'How far ahead (seconds) RabbitmqMemoryPredictedToRunOut looks for the high watermark.' },
  memoryPredictMinUsedRatio: { value: 0.5, doc: 'RabbitmqMemoryPredictedToRunOut only fires above this fraction of the watermark (below it, GC saw-tooth makes false trends).' },
  memoryPredictFor: { value: '30m', doc: 'How long the memory prediction must hold.' },
  diskPredictWindow: { value: '6h', doc: 'Past free disk space RabbitmqDiskPredictedToRunOut extrapolates from.' },
  diskPredictHorizonSeconds: { value: 24 * 3600, doc: 'How far ahead (seconds) RabbitmqDiskPredictedToRunOut looks for the disk free limit.' },
  diskPredictFor: { value: '1h', doc: 'How long the disk prediction must hold.' },
  fileDescriptorsRatio: { value: 0.8, doc: 'Fraction of the file descriptor limit above which RabbitmqFileDescriptorsNearLimit fires.' },
  fileDescriptorsFor: { value: '10m', doc: 'How long file descriptor use must stay above that fraction.' },
  partitionFor: { value: '1m', doc: 'How long a node must see a partition before RabbitmqNetworkPartition fires.' },
  unreachablePeersFor: { value: '2m', doc: 'How long a node must fail to reach a cluster peer before RabbitmqClusterPeersUnreachable fires.' },
  metadataStoreTermWindow: { value: '15m', doc: 'Window over which RabbitmqMetadataStoreLeaderChanging counts how far the metadata store\'s Raft term moved on a node.' },
  metadataStoreTermChanges: { value: 3, doc: 'Raft terms gone by within that window that fire RabbitmqMetadataStoreLeaderChanging (each leader election starts one or more).' },
  metadataStoreTermFor: { value: '5m', doc: 'How long the term must keep moving that much before RabbitmqMetadataStoreLeaderChanging fires.' },
  healthCheckFor: { value: '5m', doc: 'How long a health check must keep failing before RabbitmqHealthCheckFailing fires.' },
  certificateFor: { value: '10m', doc: 'How long the certificate-expiration check must fail before RabbitmqTlsCertificateExpiring fires (the number of days is the exporter\'s collectors.health_checks.certificate_expiration_days, default 30).' },
  backlogMinReady: { value: 1000, doc: 'Ready messages a queue must hold before RabbitmqQueueBacklogGrowing considers its growth.' },
  backlogFor: { value: '30m', doc: 'How long a queue\'s backlog must grow (10-minute slope above 0) before RabbitmqQueueBacklogGrowing fires.' },
  noConsumerFor: { value: '10m', doc: 'How long ready messages must wait in a queue without consumers before RabbitmqMessagesWithoutConsumer fires (in a family whose queues have none: RabbitmqQueueFamilyWithoutConsumers).' },
  unroutableWindow: { value: '5m', doc: 'Window over which RabbitmqUnroutableMessagesDropped counts dropped unroutable messages.' },
  unroutableMin: { value: 1, doc: 'Dropped unroutable messages within that window that fire RabbitmqUnroutableMessagesDropped.' },
  unroutableFor: {
    value: '10m',
    doc: 'How long messages must keep being dropped (some in every unroutableWindow) before RabbitmqUnroutableMessagesDropped fires. Longer than the window, so one burst (a binding recreated during a deploy) or one false increase (the cluster-wide counter dropping when a node restarts reads as a counter reset) does not fire it.',
  },
  limitRatio: { value: 0.8, doc: 'Fraction of a vhost or user limit (connections, queues, channels) above which RabbitmqVhostNearLimit and RabbitmqUserNearLimit fire.' },
  limitFor: { value: '5m', doc: 'How long usage must stay above that fraction of a limit.' },
  churnRatio: { value: 0.1, doc: 'Connections opened plus closed per second, as a fraction of open connections, above which RabbitmqHighConnectionChurn fires.' },
  churnMinConnections: { value: 100, doc: 'RabbitmqHighConnectionChurn stays silent below this many open connections.' },
  churnWindow: { value: '5m', doc: 'Window of the churn rate.' },
  churnFor: { value: '10m', doc: 'How long churn must stay above the fraction.' },
  waitMaxSeconds: { value: 600, doc: 'Estimated wait (rabbitmq_queue_estimated_wait_seconds: ready ÷ recent drain rate) above which RabbitmqQueueWaitTooLong fires; +Inf (nothing drains) counts as above.' },
  waitFor: { value: '15m', doc: 'How long the estimated wait must stay above waitMaxSeconds.' },
  noProgressSeconds: { value: 900, doc: 'Seconds a queue may hold messages with neither deliveries, gets nor acks (rabbitmq_queue_without_progress_seconds) before RabbitmqQueueNoProgress considers it.' },
  noProgressFor: { value: '5m', doc: 'How long no progress must last beyond noProgressSeconds before RabbitmqQueueNoProgress fires (the signal moves only at statistics polls).' },
  stuckConsumersFor: { value: '10m', doc: 'How long rabbitmq_queue_consumers_stuck must be 1 (after collectors.queues.stuck_after statistics polls) before RabbitmqQueueConsumersStuck fires.' },
  deadLetterWindow: { value: '10m', doc: 'Window over which RabbitmqDeadLetterQueueFilling looks for growth of a dead-letter target\'s messages.' },
  deadLetterFor: { value: '10m', doc: 'How long a dead-letter queue must keep growing (growth over every deadLetterWindow) before RabbitmqDeadLetterQueueFilling fires.' },
  lengthLimitRatio: { value: 0.9, doc: 'Fill of a queue\'s max-length or max-length-bytes above which RabbitmqQueueNearLengthLimit fires.' },
  lengthLimitHorizonSeconds: { value: 3600, doc: 'RabbitmqQueueNearLengthLimit fires too when the queue is predicted to reach a limit within this many seconds.' },
  lengthLimitFor: { value: '10m', doc: 'How long the fill or the prediction must hold before RabbitmqQueueNearLengthLimit fires.' },
  belowQuorumFor: { value: '2m', doc: 'How long a vhost must have quorum queues below quorum (fewer members online than a majority) before RabbitmqQuorumQueuesBelowQuorum fires: longer than a leader election and a poll.' },
  belowTargetFor: { value: '30m', doc: 'How long quorum queues must have fewer members than their target size before RabbitmqQuorumQueuesBelowTargetSize fires: longer than a rolling restart.' },
  certificateExpiryDays: { value: 21, doc: 'Days before a TLS listener\'s certificate expires at which RabbitmqCertificateExpiresSoon fires (from the certificates collector\'s dates).' },
  certificateExpiryFor: { value: '1h', doc: 'How long a certificate must be within those days of its expiry before RabbitmqCertificateExpiresSoon fires.' },
  outdatedClientVersions: {
    value: '0\\.([0-9]|10\\.[0-6])(\\..*)?',
    doc: 'amqplib versions (a PromQL regular expression on client_version) that RabbitmqOutdatedClientLibrary reports: before 0.10.7 amqplib negotiates a frame_max of 4096, which RabbitMQ 4.1 and later refuse (amqp-node/amqplib#790).',
  },
  outdatedClientFor: { value: '1h', doc: 'How long such a client must stay connected before RabbitmqOutdatedClientLibrary fires.' },
} as const satisfies Record<string, Threshold>;
