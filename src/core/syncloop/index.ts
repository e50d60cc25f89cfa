/**
 * The sync-loop reconciler (issue 4): the kubelet's main loop applied to our model of a cluster.
 * See syncloop.ts for the shape; each file names the upstream code it follows.
 */
export { Channel, ChannelClosedError, waitAny } from './channel';
export { Selector } from './select';
export { Ticker } from './ticker';
export { WorkQueue, jitter } from './workqueue';
export { PodConfig, CONFIG_CHANNEL_CAPACITY } from './config/podconfig';
export { PodStorage, checkAndUpdatePod, podsDifferSemantically } from './config/storage';
export { GenericPLEG, generateEvents, containerStates, containerIdOf } from './pleg/generic';
export {
  PlegRelister,
  PodsNotSynced,
  goDuration,
  PLEG_CHANNEL_CAPACITY,
  PLEG_RELIST_PERIOD_MS,
  PLEG_RELIST_THRESHOLD_MS,
  type ReadPods,
  type PlegHealth,
} from './pleg/relister';
export { ProbeInference, PROBE_CHANNEL_CAPACITY, probeOfEvent, COMBINED_PREFIX, type ProbeProgress } from './prober/infer';
export { ResultsManager, INITIAL_RESULT, thresholdsOf } from './prober/results';
export { exitCause, describeExit, type ExitCause } from './prober/exits';
export { needToReconcilePodReadiness, activeDeadlinePassed } from './podstatus';
export { podWorkerMark } from './podworkerlane';
export {
  PodWorkers,
  RESYNC_INTERVAL_MS,
  BACKOFF_PERIOD_MS,
  type PodSyncer,
  type SyncContext,
  type UpdatePodOptions,
  type PodWorkerState,
  type PodSyncSnapshot,
  type PodWorkerSyncRecord,
  type TerminationResult,
} from './podworkers';
export { DesiredStateOfWorld, type DesiredObject } from './state/desired';
export { ActualStateOfWorld, type ViewChangeListener } from './state/actual';
export { computeObjectView, podPrintColumns, type ObjectView } from '../rows/objectView';
export { ProbeResultsCache } from './state/probes';
export { SyncLoop, SYNC_PERIOD_MS, HOUSEKEEPING_PERIOD_MS, HOUSEKEEPING_WARNING_MS, type SyncLoopOptions } from './syncloop';
export { syncLoopIteration } from './iteration';
export { syncLoop, BACKOFF_BASE_MS, BACKOFF_MAX_MS } from './loop';
export { handlePodCleanups, type HousekeepingReport } from './housekeeping';
export { silentLogger, type SyncLogger, type Verbosity } from './log';
export * from './types';
export { ClusterSync, sourceName, PODS_GVR, EVENTS_GVR, type ClusterSyncOptions } from './sources/cluster';
export { Reflector, type ListWatchClient, type ReflectorSink, type ReflectorOptions, type ReflectorState } from './sources/reflector';
export { ConfigSink, EventsSink, sendProbeUpdates } from './sources/sinks';
export { ConsistencyCheck, ConsistencyLister, divergence, CONSISTENCY_PERIOD_MS, CONSISTENCY_CONFIRM_MS } from './sources/consistency';
