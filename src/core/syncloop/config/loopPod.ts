import { MAX_OBJECT_DEPTH } from '../../kube/objects/depth';
import type { Pod } from '../../kube/objects/pod';
import type { StoredObject } from '../../kube/objects/types';

/**
 * The loop's copy of a pod: the fields the loop, the PLEG, the prober and the row view read, and
 * two fingerprints standing for what the merge compares but nothing reads (storage.ts).
 *
 * A pod as listed is mostly what only the merge's equality checks look at: its containers' images,
 * ports and resources, its tolerations, the IPs and QoS class in its status, every condition's
 * timestamps, managedFields. Holding whole pods in the merge's storage, the desired state and the
 * pod cache was about 1,000 bytes an object of the host's heap at 100,000 objects (issue 41). The
 * full object lives only while its list or watch event is handled (and in a flight recording,
 * which is handed the object as the API sent it, never this copy).
 *
 * Guarantees:
 * - Every field kept is the object's own (the same values, shared, not copied); a kept array or
 *   object is the full pod's own when nothing in it is dropped.
 * - specFingerprint(copy) === specFingerprint(pod) and statusFingerprint likewise: the merge
 *   compares copies with new pods exactly as it compared whole pods, except when two different
 *   values hash alike (two independent 32-bit lanes: about one chance in 2^52 per compare, when a
 *   change would be taken for none; the consistency check does not see that, a later change does).
 * - Equal JSON values hash alike whatever their key order, and a member set to undefined counts as
 *   absent (deepEqual's rules); a subtree deeper than MAX_OBJECT_DEPTH counts as changed on every
 *   hash, as deepEqual counts it unequal.
 * - loopPod(p) is the same copy for the same object while p lives (the merge and the pod cache
 *   keep one copy, not two).
 */

/** What a copy carries beyond the pod's fields (not enumerable by `for..in`, JSON or Object.keys). */
const SPEC_FP = Symbol('specFingerprint');
const STATUS_FP = Symbol('statusFingerprint');
interface Fingerprinted {
  [SPEC_FP]?: number;
  [STATUS_FP]?: number;
}

const CONTAINER_KEPT = ['name', 'livenessProbe', 'readinessProbe', 'startupProbe', 'restartPolicy'] as const;
const SPEC_KEPT = ['nodeName', 'readinessGates', 'restartPolicy', 'terminationGracePeriodSeconds', 'activeDeadlineSeconds'] as const;
const STATUS_KEPT = ['phase', 'reason', 'message', 'startTime'] as const;
const CONDITION_KEPT = ['type', 'status', 'reason', 'message'] as const;
const CONTAINER_STATUS_KEPT = ['name', 'ready', 'started', 'restartCount', 'containerID', 'state', 'lastState'] as const;
const META_DROPPED = new Set(['managedFields', 'ownerReferences']);

const copies = new WeakMap<object, Pod>();

/** The loop's copy of `pod` (see above); the same object for the same pod. */
export function loopPod(pod: Pod): Pod {
  if (isLoopCopy(pod)) return pod;
  const known = copies.get(pod);
  if (known) return known;
  const copy: Pod & Fingerprinted = { metadata: meta(pod.metadata) } as Pod & Fingerprinted;
  if (pod.kind !== undefined) copy.kind = pod.kind;
  if (pod.apiVersion !== undefined) copy.apiVersion = pod.apiVersion;
  if (pod.spec) copy.spec = spec(pod.spec);
  if (pod.status) copy.status = status(pod.status);
  copy[SPEC_FP] = specFingerprint(pod);
  copy[STATUS_FP] = statusFingerprint(pod);
  copies.set(pod, copy);
  return copy;
}

/** True for a copy loopPod made. */
export function isLoopCopy(o: StoredObject): boolean {
  return (o as Fingerprinted)[SPEC_FP] !== undefined;
}

/** Every top-level field but metadata and status (what podsDifferSemantically compares whole), hashed. */
export function specFingerprint(o: StoredObject): number {
  const known = (o as Fingerprinted)[SPEC_FP];
  if (known !== undefined) return known;
  const h = new Hash();
  // member() walks its value one level down: deepEqual(existing[k], ref[k]) starts at MAX_OBJECT_DEPTH.
  for (const k in o) if (k !== 'metadata' && k !== 'status') h.member(k, o[k], MAX_OBJECT_DEPTH + 1);
  return h.value();
}

/** The status, hashed (what a RECONCILE is decided on). */
export function statusFingerprint(o: StoredObject): number {
  const known = (o as Fingerprinted)[STATUS_FP];
  if (known !== undefined) return known;
  const h = new Hash();
  h.value0(o.status, MAX_OBJECT_DEPTH);
  return h.value();
}

function meta(m: Pod['metadata']): Pod['metadata'] {
  let drop = false;
  for (const k in m) if (META_DROPPED.has(k)) drop = true;
  if (!drop) return m;
  const out: Record<string, unknown> = {};
  for (const k in m) if (!META_DROPPED.has(k)) out[k] = (m as Record<string, unknown>)[k];
  return out as Pod['metadata'];
}

function spec(s: NonNullable<Pod['spec']>): NonNullable<Pod['spec']> {
  const out = pick(s as Record<string, unknown>, SPEC_KEPT);
  if (s.containers) out.containers = s.containers.map((c) => pick(c, CONTAINER_KEPT));
  if (s.initContainers) out.initContainers = s.initContainers.map((c) => pick(c, CONTAINER_KEPT));
  if (s.ephemeralContainers) out.ephemeralContainers = s.ephemeralContainers.map((c) => pick(c, ['name']));
  return out as NonNullable<Pod['spec']>;
}

function status(s: NonNullable<Pod['status']>): NonNullable<Pod['status']> {
  const out = pick(s, STATUS_KEPT);
  if (s.conditions) out.conditions = s.conditions.map((c) => pick(c as unknown as Record<string, unknown>, CONDITION_KEPT));
  for (const k of ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses'] as const) {
    const list = s[k];
    if (list) out[k] = list.map((c) => pick(c as unknown as Record<string, unknown>, CONTAINER_STATUS_KEPT));
  }
  return out as NonNullable<Pod['status']>;
}

/** The named members of `o` that are set; `o` itself when it has no other. */
function pick(o: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let kept = 0;
  for (const k of keys) {
    const v = o[k];
    if (v === undefined) continue;
    out[k] = v;
    kept++;
  }
  let all = 0;
  for (const k in o) if (o[k] !== undefined) all++;
  return all === kept ? o : out;
}

/** A value that never repeats: what a subtree too deep to walk hashes to. */
let tooDeep = 0;

/**
 * Two 32-bit lanes (FNV-1a over a typed walk, and a multiplicative mix): objects as an
 * order-free sum of their members' hashes, arrays in order.
 */
class Hash {
  a = 0x811c9dc5;
  b = 0x9e3779b9;

  value(): number {
    // 21 bits of one lane over the 32 of the other: a safe integer.
    return (this.a >>> 11) * 2 ** 32 + (this.b >>> 0);
  }

  private mix(x: number): void {
    this.a = Math.imul(this.a ^ x, 0x01000193);
    this.b = Math.imul(this.b + x, 0x85ebca6b) ^ (this.b >>> 13);
  }

  private str(s: string): void {
    this.mix(s.length);
    for (let i = 0; i < s.length; i++) this.mix(s.charCodeAt(i));
  }

  /** A named member of an object (the sum of these is the object's hash). */
  member(k: string, v: unknown, left: number): void {
    if (v === undefined) return;
    const h = new Hash();
    h.str(k);
    h.value0(v, left - 1);
    this.a = (this.a + h.a) | 0;
    this.b = (this.b + h.b) | 0;
  }

  value0(v: unknown, left: number): void {
    if (v === null || v === undefined) return this.mix(1);
    switch (typeof v) {
      case 'string':
        this.mix(2);
        return this.str(v);
      case 'number':
        this.mix(3);
        return this.str(String(v));
      case 'boolean':
        return this.mix(v ? 4 : 5);
      case 'object':
        break;
      default:
        this.mix(6);
        return this.str(String(v));
    }
    if (left <= 0) {
      this.mix(7);
      return this.mix(++tooDeep);
    }
    if (Array.isArray(v)) {
      this.mix(8);
      this.mix(v.length);
      for (const x of v) this.value0(x, left - 1);
      return;
    }
    const sum = new Hash();
    sum.a = sum.b = 0;
    let n = 0;
    for (const k in v as Record<string, unknown>) {
      const x = (v as Record<string, unknown>)[k];
      if (x === undefined) continue;
      n++;
      sum.member(k, x, left);
    }
    this.mix(9);
    this.mix(n);
    this.mix(sum.a);
    this.mix(sum.b);
  }
}
