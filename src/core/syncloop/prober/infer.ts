import { containerIdOf } from '../pleg/generic';
import { allContainerStatuses, objectKey, type Container, type KubeEvent, type Pod, type ProbeType, type ProbeUpdate } from '../types';

/** Upstream probe results channels are buffered 20 each (prober/results manager). */
export const PROBE_CHANNEL_CAPACITY = 20;

/**
 * ProbeInference: reconstructs the prober's results (upstream liveness / readiness / startup
 * managers) from what the API shows, since we cannot run the probes ourselves.
 *
 * From pods (changes between two observations of the same UID; the first observation is a baseline):
 * - readiness: a container with a readinessProbe turns ready -> Success; a running container that
 *   was ready turns not ready -> Failure (not ready because it stopped is PLEG's business).
 * - startup: a container with a startupProbe turns started -> Success.
 * - liveness: restartCount rises on a container with a livenessProbe and no liveness failure was
 *   seen since the last restart -> Failure (the Events that would say so were missed).
 * From Events (a new event, or a repeat: its count rose; events present at start are a baseline):
 * - reason Unhealthy, "Liveness|Readiness|Startup probe failed|errored: ..." -> that probe, Failure;
 * - reason Killing, "... failed liveness|startup probe, will be restarted" -> that probe, Failure.
 *
 * Memory: per observed pod its containers' last flags (forgetPod on removal), and per probe Event
 * its last count, capped at `maxEvents` (oldest forgotten first).
 */
interface ContainerRecord {
  ready: boolean;
  started: boolean;
  restartCount: number;
  containerId: string;
  livenessSinceRestart: boolean;
}

interface PodRecord {
  key: string;
  uid: string;
  probes: Map<string, { liveness: boolean; readiness: boolean; startup: boolean }>;
  containers: Map<string, ContainerRecord>;
}

const UNHEALTHY = /^(Liveness|Readiness|Startup) probe (failed|errored)/;
const KILLING = /failed (liveness|startup) probe/;

export class ProbeInference {
  private readonly pods = new Map<string, PodRecord>();
  private readonly byKey = new Map<string, string>();
  private readonly eventCounts = new Map<string, number>();

  constructor(readonly maxEvents = 10_000) {}

  observePod(pod: Pod): ProbeUpdate[] {
    const uid = pod.metadata.uid;
    const key = objectKey(pod);
    const prev = this.pods.get(uid);
    const rec: PodRecord = { key, uid, probes: probesOf(pod), containers: new Map() };
    const out: ProbeUpdate[] = [];
    for (const s of allContainerStatuses(pod)) {
      const before = prev?.containers.get(s.name);
      const cur: ContainerRecord = {
        ready: !!s.ready,
        started: !!s.started,
        restartCount: s.restartCount ?? 0,
        containerId: s.containerID ? containerIdOf(s.containerID) : s.name,
        livenessSinceRestart: before?.livenessSinceRestart ?? false,
      };
      rec.containers.set(s.name, cur);
      if (!before) continue; // baseline: we infer transitions we saw, not history
      const probes = rec.probes.get(s.name);
      const running = !!s.state?.running;
      if (probes?.readiness && cur.ready !== before.ready && (cur.ready || running)) {
        out.push({ probe: 'readiness', result: cur.ready ? 'Success' : 'Failure', podUID: uid, containerId: cur.containerId, message: `ready ${before.ready} -> ${cur.ready}` });
      }
      if (probes?.startup && cur.started && !before.started) {
        out.push({ probe: 'startup', result: 'Success', podUID: uid, containerId: cur.containerId, message: 'started' });
      }
      if (cur.restartCount > before.restartCount) {
        if (probes?.liveness && !before.livenessSinceRestart) {
          out.push({ probe: 'liveness', result: 'Failure', podUID: uid, containerId: cur.containerId, message: `restartCount ${before.restartCount} -> ${cur.restartCount}` });
        }
        cur.livenessSinceRestart = false;
      }
    }
    this.pods.set(uid, rec);
    this.byKey.set(key, uid);
    return out;
  }

  forgetPod(uid: string): void {
    const rec = this.pods.get(uid);
    if (!rec) return;
    this.pods.delete(uid);
    if (this.byKey.get(rec.key) === uid) this.byKey.delete(rec.key);
  }

  /** Forgets the pods of `namespace` (all when undefined) that a fresh list no longer shows. */
  retainPods(seen: ReadonlySet<string>, namespace?: string): void {
    for (const rec of [...this.pods.values()]) {
      if (seen.has(rec.uid)) continue;
      if (namespace === undefined || rec.key.startsWith(`${namespace}/`)) this.forgetPod(rec.uid);
    }
  }

  knowsEvent(uid: string): boolean {
    return this.eventCounts.has(uid);
  }

  /** Records an Event that existed before we started watching: no update, but its count is known. */
  baselineEvent(ev: KubeEvent): void {
    if (isProbeEvent(ev)) this.remember(ev.metadata.uid, countOf(ev));
  }

  /** An Event was added or modified. Returns the probe failure it reports, if it is a new occurrence. */
  observeEvent(ev: KubeEvent): ProbeUpdate[] {
    if (!isProbeEvent(ev)) return [];
    const count = countOf(ev);
    const seen = this.eventCounts.get(ev.metadata.uid);
    if (seen !== undefined && count <= seen) return [];
    this.remember(ev.metadata.uid, count);
    const probe = probeOfEvent(ev);
    if (!probe) return [];
    const io = ev.involvedObject;
    const uid = io.uid || this.byKey.get(io.namespace ? `${io.namespace}/${io.name}` : (io.name ?? ''));
    if (!uid) return [];
    const name = containerNameOf(io.fieldPath);
    const c = name ? this.pods.get(uid)?.containers.get(name) : undefined;
    if (probe === 'liveness' && c) c.livenessSinceRestart = true;
    return [{ probe, result: 'Failure', podUID: uid, containerId: c?.containerId ?? name ?? '', message: ev.message }];
  }

  forgetEvent(uid: string): void {
    this.eventCounts.delete(uid);
  }

  get podCount(): number {
    return this.pods.size;
  }

  get eventCount(): number {
    return this.eventCounts.size;
  }

  private remember(uid: string, count: number): void {
    this.eventCounts.delete(uid);
    this.eventCounts.set(uid, count);
    while (this.eventCounts.size > this.maxEvents) this.eventCounts.delete(this.eventCounts.keys().next().value!);
  }
}

function isProbeEvent(ev: KubeEvent): boolean {
  return ev.reason === 'Unhealthy' || ev.reason === 'Killing';
}

function countOf(ev: KubeEvent): number {
  return ev.series?.count ?? ev.count ?? 1;
}

export function probeOfEvent(ev: KubeEvent): ProbeType | undefined {
  const msg = ev.message ?? '';
  if (ev.reason === 'Unhealthy') {
    const m = UNHEALTHY.exec(msg);
    return m ? (m[1]!.toLowerCase() as ProbeType) : undefined;
  }
  if (ev.reason === 'Killing') {
    const m = KILLING.exec(msg);
    return m ? (m[1] as ProbeType) : undefined;
  }
  return undefined;
}

/** "spec.containers{probe-me}" -> "probe-me". */
function containerNameOf(fieldPath: string | undefined): string | undefined {
  const m = /\{([^}]+)\}/.exec(fieldPath ?? '');
  return m?.[1];
}

function probesOf(pod: Pod): PodRecord['probes'] {
  const out: PodRecord['probes'] = new Map();
  const all: Container[] = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  for (const c of all) out.set(c.name, { liveness: !!c.livenessProbe, readiness: !!c.readinessProbe, startup: !!c.startupProbe });
  return out;
}
