/**
 * The records of a flight recording: one JSON object per line inside a header or keyframe block,
 * packed (packed.ts) inside a data block (see format.ts).
 * Times (`t`) are wall-clock milliseconds since the Unix epoch, so a recording means the same
 * thing on any machine and across process restarts.
 *
 * An object's key is `TYPE/NAMESPACE/NAME`, TYPE being `resource` for the core group and
 * `resource.group` otherwise (kubectl's spelling), NAMESPACE empty for a cluster-scoped object:
 * `pods/default/web-0`, `deployments.apps/shop/cart`, `nodes//node-1`.
 *
 * Objects are stored masked (core/kube/objects/redact.ts): Secret values never reach a record, and
 * managedFields only in their recorded form (managed.ts, version 4 on: managers, operations, times,
 * field sets cut at three levels). Events are kept whole, whatever object they are about. Credentials never do either: the recorder is given objects and timeline events, never
 * the client or its kubeconfig; the header names the context and the server URL only.
 */
import type { TimelineEvent } from '../timeline/events';

/**
 * The header's `version`: 4 keeps managedFields in their recorded form (managed.ts; blocks and
 * records are spelled as in 3); 3 packs a mark's `data` and its worker's `waitedMs` (packed.ts); 2
 * wrote data blocks packed (block kind 5) without them; 1 wrote them as JSON lines (kind 4).
 * Readers of version 4 read all four. A reader refuses a version above its own.
 */
export const FORMAT_VERSION = 4;

export type Obj = Record<string, unknown>;

/** The first record of every segment. */
export interface HeaderRecord {
  k: 'H';
  version: number;
  /** When the recording (not this segment) started. */
  startedAt: number;
  /** When this segment started (= startedAt for the first one). */
  t: number;
  segment: number;
  context?: string;
  server?: string;
}

/** One object of keyframe `seq`: the full set of objects held at the keyframe's instant `t`. */
export interface KeyframeRecord {
  k: 'K';
  t: number;
  seq: number;
  key: string;
  o: Obj;
}

/** The last record of keyframe `seq`: it holds `n` objects. A keyframe without it is incomplete and is never used. */
export interface KeyframeEndRecord {
  k: 'KE';
  t: number;
  seq: number;
  n: number;
}

/**
 * One change of one object as a watch delivered it: A(dded), M(odified), D(eleted). `o` is the
 * whole object after the change; `p` instead is a JSON merge patch (RFC 7386) from the object
 * before, written when it is smaller and reproduces the object exactly (diff.ts). A delete carries
 * neither: the object before is known to the reader.
 */
export interface DeltaRecord {
  k: 'D';
  t: number;
  op: 'A' | 'M' | 'D';
  key: string;
  o?: Obj;
  p?: Obj;
}

/** One timeline event (loader task phase, sync-loop iteration, pod-worker mark), as the timeline holds it. */
export interface TimelineRecord {
  k: 'T';
  t: number;
  e: TimelineEvent;
}

export type RecordingRecord = HeaderRecord | KeyframeRecord | KeyframeEndRecord | DeltaRecord | TimelineRecord;

/** The key of an object of a type (see the module comment). */
export function objectKey(type: { group: string; resource: string }, namespace: string | undefined, name: string): string {
  return `${type.group ? `${type.resource}.${type.group}` : type.resource}/${namespace ?? ''}/${name}`;
}

/** The parts of a key; undefined when it is not one. */
export function parseKey(key: string): { type: string; resource: string; group: string; namespace: string | undefined; name: string } | undefined {
  const a = key.indexOf('/');
  const b = key.indexOf('/', a + 1);
  if (a <= 0 || b < 0 || b === key.length - 1) return undefined;
  const type = key.slice(0, a);
  const dot = type.indexOf('.');
  const ns = key.slice(a + 1, b);
  return {
    type,
    resource: dot < 0 ? type : type.slice(0, dot),
    group: dot < 0 ? '' : type.slice(dot + 1),
    namespace: ns === '' ? undefined : ns,
    name: key.slice(b + 1),
  };
}

/** Whether a key names a core/v1 Event (they are shown apart from the objects). */
export function isEventKey(key: string): boolean {
  return key.startsWith('events/');
}
