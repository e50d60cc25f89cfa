import type { SyncIterationEvent, SyncSource } from '../timeline/events';
import { runSteps, runStepsSliced, STEP_ITEMS, type Steps } from '../slice';
import { Channel } from './channel';
import { handlePodCleanups, type HousekeepingReport } from './housekeeping';
import { joinKeys, kobjs, kv, plegEventJSON, q } from './log';
import { iterationNode } from './iterationNode';
import { HOUSEKEEPING_WARNING_MS, type SyncLoop } from './syncloop';
import type { PodLifecycleEvent, PodOperation, PodUpdate, ProbeType, ProbeUpdate } from './types';
import { isPodResource, objectKey } from '../kube/objects/objectKey';
import { type Pod } from '../kube/objects/pod';
import { containerNameOf, exitOf } from './prober/exits';

/**
 * syncLoopIteration: upstream kubelet.go — one select over every source, one handler per case.
 *
 *   configCh        PodUpdate          ADD -> HandlePodAdditions, UPDATE -> HandlePodUpdates,
 *                                      REMOVE -> HandlePodRemoves, RECONCILE -> HandlePodReconcile
 *                                      (a sync only when readiness needs reconciling: else 'skipped'),
 *                                      DELETE -> HandlePodUpdates, SET -> error; then the source is seen.
 *                                      Pods only: other kinds go to their informer (PodConfig.informer);
 *                                      one that arrives here anyway is handled as an informer's.
 *   plegCh          PodLifecycleEvent  unless ContainerRemoved: HandlePodSyncs; ContainerDied also
 *                                      cleans up that container and names why it died (exit code,
 *                                      reason: OOMKilled, Error, Completed, Killed)
 *   syncCh          tick (1 s)         pods whose work-queue deadline (by UID) passed, and pods past
 *                                      activeDeadlineSeconds -> HandlePodSyncs
 *   liveness        probe Update       Failure only -> HandlePodSyncs
 *   readiness       probe Update       record the result, then HandlePodSyncs
 *   startup         probe Update       record the result, then HandlePodSyncs
 *   housekeepingCh  tick (2 s)         skipped until all sources are seen; HandlePodCleanups; warn > 1 s
 *
 * The select is fair (select.ts): no source can starve another. Every iteration appends exactly one
 * SyncIterationEvent to the timeline (with the pod's UID when it names one pod, and `inferred` when
 * a probe result was inferred) and every handler that runs logs one line naming the objects and the
 * handler. Returns false only when configCh is closed (the loop exits, as upstream).
 */
const NEVER = new Channel<never>(1, 'never');

type Outcome = Pick<SyncIterationEvent, 'source' | 'op' | 'key' | 'handler' | 'outcome'> &
  Partial<Pick<SyncIterationEvent, 'message' | 'uid' | 'inferred' | 'data' | 'container'>>;

export async function syncLoopIteration(kl: SyncLoop, syncCh: Channel<number>, housekeepingCh: Channel<number>, signal: AbortSignal): Promise<boolean> {
  const c = kl.channels;
  // A closed channel is always ready; only configCh closing means anything (the loop exits). Other
  // closed sources are replaced by a channel that never fires, so they cannot spin the loop.
  const live = <T>(ch: Channel<T>): Channel<T> => (ch.closed && ch.length === 0 ? (NEVER as Channel<T>) : ch);
  const cases = [c.config, live(c.pleg), live(syncCh), live(c.liveness), live(c.readiness), live(c.startup), live(housekeepingCh)] as const;
  const sel = await kl.selector.select(cases, signal);
  const start = kl.clock.now();
  let out: Outcome;
  let keepGoing = true;
  try {
    switch (sel.index) {
      case 0:
        if (!sel.ok) {
          kl.logger.error('Update channel is closed, exiting the sync loop');
          out = { source: 'config', op: 'closed', key: '', handler: 'none', outcome: 'error', message: 'configCh closed' };
          keepGoing = false;
        } else out = await handleConfig(kl, sel.value as PodUpdate);
        break;
      case 1:
        out = sel.ok ? handlePleg(kl, sel.value as PodLifecycleEvent) : closedCase('pleg');
        break;
      case 2:
        out = await handleSyncTick(kl);
        break;
      case 3:
      case 4:
      case 5: {
        const probe: ProbeType = sel.index === 3 ? 'liveness' : sel.index === 4 ? 'readiness' : 'startup';
        out = sel.ok ? handleProbe(kl, probe, sel.value as ProbeUpdate) : closedCase('probe');
        break;
      }
      default:
        out = await handleHousekeeping(kl, signal, start);
    }
  } catch (e) {
    if (signal.aborted) throw e;
    // A handler bug must not stop the loop: the iteration is recorded as an error and the next one runs.
    out = { source: sourceOf(sel.index), op: 'error', key: '', handler: 'none', outcome: 'error', message: e instanceof Error ? e.message : String(e) };
    kl.logger.error(`SyncLoop iteration failed err=${q(out.message!)}`);
  }
  const durationMs = round3(kl.clock.now() - start);
  const node = iterationNode(kl, out.key);
  kl.timeline?.append({ kind: 'iteration', t: round3(start - kl.origin), durationMs, ...out, ...(node ? { node } : {}) });
  return keepGoing;
}

/** The config cases: operation -> the handler that runs (DELETE is a graceful deletion: an update). */
const configHandlers: Record<Exclude<PodOperation, 'SET'>, { handler: string; run: (kl: SyncLoop, u: PodUpdate) => Steps<string[]> }> = {
  ADD: { handler: 'HandlePodAdditions', run: (kl, u) => kl.handlePodAdditions(u) },
  UPDATE: { handler: 'HandlePodUpdates', run: (kl, u) => kl.handlePodUpdates(u) },
  REMOVE: { handler: 'HandlePodRemoves', run: (kl, u) => kl.handlePodRemoves(u) },
  RECONCILE: { handler: 'HandlePodReconcile', run: (kl, u) => kl.handlePodReconcile(u) },
  DELETE: { handler: 'HandlePodUpdates', run: (kl, u) => kl.handlePodUpdates(u) },
};

async function handleConfig(kl: SyncLoop, u: PodUpdate): Promise<Outcome> {
  if (u.op !== 'SET' && !isPodResource(u.resource)) {
    const out = await handleInformer(kl, u);
    kl.sourcesSeenByLoop.add(u.source);
    return out;
  }
  const keys = u.pods.map((p) => objectKey(p, u.resource));
  let out: Outcome;
  const h = u.op === 'SET' ? undefined : configHandlers[u.op];
  if (h) {
    // Upstream's verbosity: RECONCILE at V(4), the other operations at V(2).
    kl.logger.info(`SyncLoop ${u.op}${kv({ source: u.source })} pods=${kobjs(keys)}${kv({ handler: h.handler })}`, u.op === 'RECONCILE' ? 4 : 2);
    // a first list's thousands of pods are handled in slices of the thread (slice.ts)
    const steps = h.run(kl, u);
    const synced = u.pods.length > STEP_ITEMS ? await runStepsSliced(steps) : runSteps(steps);
    out = { source: 'config', op: u.op, key: joinKeys(keys), handler: h.handler, outcome: 'ok', ...uidOf(u) };
    if (u.op === 'RECONCILE') {
      // Upstream syncs a reconciled pod only when its readiness needs reconciling.
      const n = synced.length;
      if (n === 0) out = { ...out, outcome: 'skipped', message: 'pod manager updated; readiness needs no reconciling: no sync' };
      else out = { ...out, message: `readiness needs reconciling: SyncPodSync ${kobjs(synced)}` };
    }
  } else if (u.op === 'SET') {
    kl.logger.error(`Kubelet does not support snapshot update${kv({ source: u.source })}`);
    out = { source: 'config', op: u.op, key: joinKeys(keys), handler: 'none', outcome: 'error', message: 'snapshot not supported' };
  } else {
    kl.logger.error(`Invalid operation type received${kv({ operation: String(u.op) })}`);
    out = { source: 'config', op: String(u.op), key: joinKeys(keys), handler: 'none', outcome: 'error', message: `invalid operation ${String(u.op)}` };
  }
  // Only after the handler ran: housekeeping must not see a source as ready before its objects are desired.
  kl.sourcesSeenByLoop.add(u.source);
  return out;
}

/** A non-pod kind's change: its informer's handler, not HandlePodAdditions/Updates (the kubelet never sees a ConfigMap there). */
async function handleInformer(kl: SyncLoop, u: PodUpdate): Promise<Outcome> {
  // A non-pod update sent straight onto configCh (PodConfig hands them to the informer itself).
  const { handler, keys } = u.pods.length > STEP_ITEMS ? await runStepsSliced(kl.informerUpdateSteps(u)) : kl.handleInformerUpdate(u);
  const resource = u.resource ? (u.resource.group ? `${u.resource.resource}.${u.resource.group}` : u.resource.resource) : '';
  kl.logger.info(`Informer ${handler}${kv({ resource, source: u.source })} objects=${kobjs(keys)}`, 4);
  return { source: 'informer', op: u.op, key: joinKeys(keys), handler, outcome: 'ok' };
}

/** A single pod's UID on its iteration, so two incarnations of one name can be told apart. */
function uidOf(u: PodUpdate): { uid?: string } {
  return u.pods.length === 1 ? { uid: u.pods[0]!.metadata.uid } : {};
}

function handlePleg(kl: SyncLoop, e: PodLifecycleEvent): Outcome {
  const d = kl.desired.getByUID(e.id);
  let out: Outcome;
  if (e.type === 'ContainerRemoved') {
    // Not sync-worthy (upstream isSyncPodWorthy): the container was already reported dead.
    out = { source: 'pleg', op: e.type, key: d?.key ?? '', handler: 'none', outcome: 'skipped', uid: e.id, data: e.data };
  } else if (d) {
    kl.logger.info(`SyncLoop (PLEG): event for pod${kv({ pod: d.key })} event=${plegEventJSON(e)}${kv({ handler: 'HandlePodSyncs' })}`, 2);
    kl.handlePodSyncs([d.key]);
    // Why it died, as the runtime reports it: OOMKilled, an error exit, a kill (137/143), Completed.
    // A kubelet reads the exit from its runtime; we read it from the status that reported the death
    // (carried by the event), else from the pod's status, which may no longer name the container by
    // the time the event is handled: say so, do not leave it blank.
    const exit =
      e.type === 'ContainerDied'
        ? (e.exit ?? exitOf(d.obj as Pod, e.data) ?? `container ${e.data}: exit not known (the pod's status no longer names it)`)
        : undefined;
    // The name a restart mark opens the previous instance's logs by (the event's, else the pod's status).
    const container = e.type === 'ContainerDied' ? (e.container ?? containerNameOf(d.obj as Pod, e.data)) : undefined;
    out = {
      source: 'pleg',
      op: e.type,
      key: d.key,
      handler: 'HandlePodSyncs',
      outcome: 'ok',
      uid: e.id,
      data: e.data,
      ...(exit ? { message: exit } : {}),
      ...(container ? { container } : {}),
      ...(e.inferred ? { inferred: true } : {}),
    };
  } else {
    kl.logger.info(`SyncLoop (PLEG): pod does not exist, ignore irrelevant event event=${plegEventJSON(e)}`, 4);
    out = { source: 'pleg', op: e.type, key: '', handler: 'none', outcome: 'skipped', uid: e.id, data: e.data, message: 'pod does not exist' };
  }
  if (e.type === 'ContainerDied') kl.cleanUpContainerInPod(e.id, e.data);
  return out;
}

async function handleSyncTick(kl: SyncLoop): Promise<Outcome> {
  const { keys, deadlineExceeded } = kl.podsToSync();
  if (keys.length === 0) return { source: 'sync', op: 'tick', key: '', handler: 'HandlePodSyncs', outcome: 'skipped' };
  kl.logger.info(`SyncLoop (SYNC) pods${kv({ total: keys.length })} pods=${kobjs(keys)}${kv({ handler: 'HandlePodSyncs' })}`, 4);
  // A minute after a start at 100,000 pods, a tick finds thousands due at once (their resyncs).
  if (keys.length > STEP_ITEMS) await runStepsSliced(kl.podSyncsSteps(keys));
  else kl.handlePodSyncs(keys);
  const message = deadlineExceeded.length ? `activeDeadlineSeconds exceeded: ${kobjs(deadlineExceeded)}` : undefined;
  return { source: 'sync', op: 'tick', key: joinKeys(keys), handler: 'HandlePodSyncs', outcome: 'ok', ...(message ? { message } : {}) };
}

function handleProbe(kl: SyncLoop, probe: ProbeType, u: ProbeUpdate): Outcome {
  const d = kl.desired.getByUID(u.podUID);
  let status: string;
  if (probe === 'liveness') {
    // Only failures matter: the sync restarts the container (for us: shows the failure).
    if (u.result !== 'Failure')
      return {
        source: 'probe',
        op: probe,
        key: d?.key ?? '',
        handler: 'none',
        outcome: 'skipped',
        uid: u.podUID,
        ...(u.message ? { message: u.message } : {}),
      };
    status = 'unhealthy';
  } else if (probe === 'readiness')
    status = u.result === 'Success' ? 'ready' : 'not ready'; // recent kubelets; older ones log ""
  else status = u.result === 'Success' ? 'started' : 'unhealthy';
  if (!d) {
    kl.logger.info(`SyncLoop (probe): ignore irrelevant update${kv({ probe, status })} update=${JSON.stringify(u)}`, 4);
    return { source: 'probe', op: probe, key: '', handler: 'none', outcome: 'skipped', uid: u.podUID, data: status, message: 'pod does not exist' };
  }
  kl.recordProbeResult(d.key, u);
  kl.logger.info(`SyncLoop (probe)${kv({ probe, status, pod: d.key, handler: 'HandlePodSyncs' })}`, 1);
  kl.handlePodSyncs([d.key]);
  return {
    source: 'probe',
    op: probe,
    key: d.key,
    handler: 'HandlePodSyncs',
    outcome: 'ok',
    uid: u.podUID,
    data: status,
    ...(u.message ? { message: u.message } : {}),
    ...(u.inferred ? { inferred: true } : {}),
  };
}

async function handleHousekeeping(kl: SyncLoop, signal: AbortSignal, start: number): Promise<Outcome> {
  if (!kl.allSourcesReady()) {
    // Cleaning up now could remove objects of a source that has not listed yet.
    kl.logger.info(`SyncLoop (housekeeping, skipped): sources aren't ready yet`, 4);
    return { source: 'housekeeping', op: 'tick', key: '', handler: 'HandlePodCleanups', outcome: 'skipped', message: "sources aren't ready yet" };
  }
  kl.logger.info(`SyncLoop (housekeeping)${kv({ handler: 'HandlePodCleanups' })}`, 4);
  const report = await handlePodCleanups(kl, signal);
  const took = kl.clock.now() - start;
  if (took > HOUSEKEEPING_WARNING_MS) {
    kl.logger.error(`Housekeeping took longer than expected err="housekeeping took too long"${kv({ expected: '1s', actual: `${Math.round(took)}ms` })}`);
  }
  const touched = [...report.removed, ...report.forgotten, ...report.terminating, ...report.readded, ...report.resynced];
  const summary = summarize(report);
  // Upstream logs the end every time; we log it when housekeeping repaired something, so the
  // output shows the repairs rather than a heartbeat.
  if (summary) kl.logger.info(`SyncLoop (housekeeping) end${kv({ duration: `${Math.round(took)}ms` })} ${summary}`, 2);
  return {
    source: 'housekeeping',
    op: 'tick',
    key: joinKeys([...new Set(touched)]),
    handler: 'HandlePodCleanups',
    outcome: report.hookError ? 'error' : 'ok',
    ...(summary || report.hookError ? { message: [summary, report.hookError].filter(Boolean).join(' ') } : {}),
  };
}

function summarize(r: HousekeepingReport): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries({ removed: r.removed, forgotten: r.forgotten, terminating: r.terminating, readded: r.readded, resynced: r.resynced })) {
    if (v.length) parts.push(`${k}=${kobjs(v.slice(0, 20))}${v.length > 20 ? `+${v.length - 20}` : ''}`);
  }
  return parts.join(' ');
}

function closedCase(source: SyncSource): Outcome {
  return { source, op: 'closed', key: '', handler: 'none', outcome: 'skipped', message: 'channel closed' };
}

function sourceOf(index: number): SyncSource {
  return (['config', 'pleg', 'sync', 'probe', 'probe', 'probe', 'housekeeping'] as const)[index] ?? 'config';
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
