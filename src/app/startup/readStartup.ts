/**
 * The start-up report's inputs, read once: from a cluster (one list of pods and one of pod Events,
 * with the user's rights) or from a flight recording (the pods and Events it held at an instant).
 *
 * Errors are values: a list the user may not make, a server that is not reached, a file that is not
 * a recording come back as `{ error }`, never thrown. Events that cannot be read (a 403 on events
 * only) leave the pods' fields to speak for themselves, and say so in `warnings`.
 */
import { KubeApiError } from '../../core/kube/errors';
import type { KubeClient } from '../../core/kube/client';
import type { GroupVersionResource } from '../../core/kube/objects/types';
import { Recording } from '../../core/recorder/reader';
import { parseKey } from '../../core/recorder/records';
import { startupReport, type StartupGroup, type StartupSelection } from '../../core/startup/report';
import type { EventLike } from '../../core/startup/podEvents';
import type { PodLike } from '../../core/startup/podStartup';

export interface StartupRead {
  groups: StartupGroup[];
  /** What could not be read and what that leaves unknown. */
  warnings: string[];
  /** Where the figures come from: the server's URL, or the recording and its instant. */
  from: string;
}

const PODS: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };
const EVENTS: GroupVersionResource = { group: '', version: 'v1', resource: 'events' };
/** Pages of this many objects: a 100,000-pod cluster is read in pieces the server can serve. */
const PAGE = 500;

function why(e: unknown): string {
  if (e instanceof KubeApiError && e.status === 403) return `forbidden: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

/** Lists the selection's pods and their Events (JSON: the status times and Event fields whole). */
export async function readStartupLive(
  client: KubeClient,
  sel: StartupSelection,
  signal: AbortSignal,
  detail: 'rows' | 'bounds' = 'rows',
): Promise<StartupRead | { error: string }> {
  const scope = { ...(sel.namespace !== undefined ? { namespace: sel.namespace } : {}), limit: PAGE, protobuf: false };
  let pods: PodLike[];
  try {
    pods = (await client.list(PODS, scope, { signal })).items as PodLike[];
  } catch (e) {
    return { error: `listing pods: ${why(e)}` };
  }
  const warnings: string[] = [];
  let events: EventLike[] = [];
  try {
    events = (await client.list(EVENTS, { ...scope, fieldSelector: 'involvedObject.kind=Pod' }, { signal })).items as EventLike[];
  } catch (e) {
    if (signal.aborted) return { error: 'interrupted' };
    warnings.push(`listing events: ${why(e)}; bounds only Events show are unknown`);
  }
  return { groups: startupReport(pods, events, sel, detail), warnings, from: client.server };
}

/** The pods and pod Events a recording held at `at` (default: its end). */
export async function readStartupRecorded(
  path: string,
  sel: StartupSelection,
  signal: AbortSignal,
  at?: number,
  detail: 'rows' | 'bounds' = 'rows',
): Promise<StartupRead | { error: string }> {
  let rec: Recording;
  try {
    rec = await Recording.open(path, signal);
  } catch (e) {
    return { error: `${path}: ${why(e)}` };
  }
  try {
    const t = at ?? rec.range.end;
    const objects = await rec.objectsAt(t, signal);
    const pods: PodLike[] = [];
    const events: EventLike[] = [];
    for (const [key, o] of objects) {
      const k = parseKey(key);
      if (!k || k.group !== '') continue;
      if (k.resource === 'pods') pods.push(o as PodLike);
      else if (k.resource === 'events') events.push(o as EventLike);
    }
    const warnings = rec.damage.map((d) => `segment ${d.segment}: ${d.bytes} damaged or cut-off bytes at ${d.at} skipped`);
    if (!events.length && pods.length) warnings.push('the recording holds no pod Events; bounds only Events show are unknown');
    return { groups: startupReport(pods, events, sel, detail), warnings, from: `${path} at ${new Date(t).toISOString()}` };
  } catch (e) {
    return { error: `${path}: ${why(e)}` };
  } finally {
    rec.close();
  }
}
