/**
 * How a row shows an object's state: a tone (the icon's colour) and a one-line description, both
 * from the ObjectView alone (kubectl's STATUS / READY / RESTARTS). No 'vscode' import.
 *
 * Tones: ok (green) Running with every container ready, or a workload with all replicas ready;
 * warning (yellow) Pending, creating, initialising, terminating, or Running but not ready; error (red)
 * CrashLoopBackOff, Error, image pull failures, non-zero exits, Failed; done (grey) Succeeded /
 * Completed; none when the object has no state worth a colour (a ConfigMap, an Active namespace).
 */
import type { ObjectView } from '../../core/rows/objectView';

export type StatusTone = 'ok' | 'warning' | 'error' | 'done' | 'none';

const POD_WAITING = new Set(['Pending', 'ContainerCreating', 'PodInitializing', 'Terminating', 'NotReady', 'SchedulingGated', 'Unknown']);
const POD_FAILED = new Set([
  'CrashLoopBackOff',
  'Error',
  'ImagePullBackOff',
  'ErrImagePull',
  'ErrImageNeverPull',
  'InvalidImageName',
  'OOMKilled',
  'Failed',
  'Evicted',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'ContainerCannotRun',
  'DeadlineExceeded',
  'ContainerStatusUnknown',
  'StartError',
]);
const PHASE_TONE: Record<string, StatusTone> = {
  Bound: 'ok',
  Available: 'ok',
  Running: 'ok',
  Succeeded: 'done',
  Released: 'done',
  Completed: 'done',
  Pending: 'warning',
  Terminating: 'warning',
  Failed: 'error',
  Lost: 'error',
};

function readyCounts(ready: string | undefined): [number, number] | undefined {
  const m = ready ? /^(\d+)\/(\d+)$/.exec(ready) : null;
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

export function isPodView(v: ObjectView): boolean {
  return v.kind === 'Pod';
}

export function statusTone(v: ObjectView): StatusTone {
  const ready = readyCounts(v.ready);
  if (isPodView(v)) {
    const s = v.status;
    if (!s) return 'none'; // metadata-only: no status was loaded
    if (s === 'Running') return ready && ready[0] < ready[1] ? 'warning' : 'ok';
    if (s === 'Succeeded' || s === 'Completed') return 'done';
    if (POD_WAITING.has(s) || /^Init:\d+\/\d+$/.test(s)) return 'warning';
    if (POD_FAILED.has(s) || s.startsWith('Init:') || s.startsWith('ExitCode:') || s.startsWith('Signal:')) return 'error';
    return 'warning';
  }
  if (v.deleting) return 'warning';
  if (ready && ready[1] > 0) return ready[0] >= ready[1] ? 'ok' : 'warning';
  return (v.phase && PHASE_TONE[v.phase]) || 'none';
}

/** "Running · Ready 1/2 · 3 restarts", "CrashLoopBackOff · Ready 0/1 · 7 restarts", "Ready 2/3". */
export function objectDescription(v: ObjectView): string {
  const parts: string[] = [];
  if (isPodView(v)) {
    if (v.status) parts.push(v.status);
    if (v.ready && v.status) parts.push(`Ready ${v.ready}`);
    if (v.restarts) parts.push(`${v.restarts} restart${v.restarts === 1 ? '' : 's'}`);
    const failing = new Set<string>();
    for (const probes of Object.values(v.probes ?? {})) {
      for (const [probe, result] of Object.entries(probes)) if (result === 'Failure') failing.add(probe);
    }
    for (const p of [...failing].sort()) parts.push(`${p} failing`);
    return parts.join(' · ');
  }
  if (v.status && v.status !== 'Active') parts.push(v.status);
  if (v.ready) parts.push(`Ready ${v.ready}`);
  return parts.join(' · ');
}
