/**
 * openPodLog(): the log of one container instance (GET pods/{name}/log), read with the user's
 * rights, as `kubectl logs POD [-c C] [-p] [-f]` reads it, and with kubectl's PodLogOptions.
 *
 * Guarantees:
 * - Errors are values: opening resolves with the instance read and its lines, or with why not;
 *   403 is `forbidden: you may not read pods/log in NS` (the server's own message kept in
 *   `detail`; nothing is retried with other rights), 400's apiserver message as it is (a container
 *   waiting to start, no previous instance, a container name needed), 404 as the server says.
 * - Never the whole log in memory: the body is handed out a line at a time through an async
 *   iterator, and while the consumer does not ask for the next line the stream stays paused, so
 *   TCP backpressure holds the rest at the server. Held at once: the stream's buffer and one line,
 *   cut at maxLineBytes (a longer line comes in pieces of at most that many bytes).
 * - Which instance was read: the container ID and restart count from the pod's status, read just
 *   before the log was asked for (`previous`: the last terminated instance, restartCount - 1).
 * - The signal ends the request at once; an iteration ended early (break) destroys the stream.
 *   `end()` says how the lines ended once the iteration is over.
 */
import { abortReason } from '../../clock';
import { KubeApiError } from '../errors';
import { resourcePath } from './paths';
import type { KubeTransport, StreamBody } from '../transport/transport';
import type { KubeObject } from '../objects/types';

export interface PodLogOptions {
  container?: string;
  previous?: boolean;
  follow?: boolean;
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
  /** RFC3339. */
  sinceTime?: string;
  timestamps?: boolean;
  /** Longest line handed out whole (bytes); longer lines come in pieces. Default 1 MiB. */
  maxLineBytes?: number;
}

export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

/** The container incarnation a log belongs to. */
export interface ContainerInstance {
  namespace: string;
  pod: string;
  container: string;
  previous: boolean;
  /** From the pod's status (containerID, or lastState.terminated.containerID with previous); unknown if the pod could not be read. */
  containerID?: string;
  /** The instance's restart count: the status' restartCount, one less for the previous instance. */
  restartCount?: number;
  /** The container was not named and the pod has several: the one picked (kubectl's default container). */
  defaultedFrom?: string[];
}

export interface PodLogFailure {
  reason: 'forbidden' | 'badRequest' | 'notFound' | 'error' | 'aborted';
  message: string;
  status?: number;
  /** The server's own message where it differs from `message`. */
  detail?: string;
}

/** `unterminated`: the last line had no newline (limitBytes cut it, or the container wrote none). */
export type PodLogEnd =
  { kind: 'ended'; lines: number; bytes: number; unterminated?: true } | { kind: 'failed'; lines: number; bytes: number; failure: PodLogFailure };

export interface PodLog {
  instance: ContainerInstance;
  /** The log's lines without their newline, in order. Iterate once. */
  lines: AsyncIterable<string>;
  /** How the lines ended; meaningful once the iteration is over. */
  end(): PodLogEnd;
  /** True while the line just handed out is the log's last and had no newline (limitBytes cut it). */
  unterminated(): boolean;
}

export type PodLogOpen = { ok: true; log: PodLog } | { ok: false; failure: PodLogFailure; instance?: ContainerInstance };

type Obj = Record<string, any>;

const podPath = (ns: string, pod: string) => `${resourcePath({ group: '', version: 'v1', resource: 'pods' }, ns)}/${encodeURIComponent(pod)}`;

/** An error of the pod read or the log request as a value (see the guarantees). */
export function podLogFailure(e: unknown, namespace: string, signal?: AbortSignal): PodLogFailure {
  if (signal?.aborted) return { reason: 'aborted', message: abortReason(signal).message };
  if (e instanceof KubeApiError) {
    if (e.status === 403) return { reason: 'forbidden', status: 403, message: `forbidden: you may not read pods/log in ${namespace}`, detail: e.message };
    if (e.status === 404) return { reason: 'notFound', status: 404, message: e.message };
    if (e.status === 400) return { reason: 'badRequest', status: 400, message: e.message };
    return { reason: 'error', status: e.status, message: e.message };
  }
  return { reason: 'error', message: e instanceof Error ? e.message : String(e) };
}

/** kubectl's default container: the kubectl.kubernetes.io/default-container annotation, else the first. */
export function defaultContainer(pod: KubeObject): { name?: string; all: string[] } {
  const spec = (pod.spec ?? {}) as Obj;
  const names = ((spec.containers as Obj[] | undefined) ?? []).map((c) => String(c.name));
  const inits = ((spec.initContainers as Obj[] | undefined) ?? []).map((c) => `${String(c.name)} (init)`);
  const wanted = (pod.metadata?.annotations as Record<string, string> | undefined)?.['kubectl.kubernetes.io/default-container'];
  const name = wanted && names.includes(wanted) ? wanted : names[0];
  return { name, all: [...names, ...inits] };
}

/** The instance `container` of `pod` that a read with `previous` gets, as its status says now. */
export function instanceOf(pod: KubeObject, container: string, previous: boolean): Pick<ContainerInstance, 'containerID' | 'restartCount'> {
  const st = (pod.status ?? {}) as Obj;
  const cs = [...((st.containerStatuses as Obj[] | undefined) ?? []), ...((st.initContainerStatuses as Obj[] | undefined) ?? [])].find(
    (s) => s?.name === container,
  );
  if (!cs) return {};
  const restarts = typeof cs.restartCount === 'number' ? cs.restartCount : undefined;
  const last = cs.lastState?.terminated as Obj | undefined;
  if (previous) return { containerID: last?.containerID, restartCount: restarts === undefined ? undefined : Math.max(0, restarts - 1) };
  // A container waiting in CrashLoopBackOff is read as its last terminated instance (the kubelet's pick).
  if (!cs.state?.running && !cs.state?.terminated && last?.containerID) {
    return { containerID: last.containerID, restartCount: restarts === undefined ? undefined : Math.max(0, restarts - 1) };
  }
  return { containerID: cs.containerID ?? cs.state?.terminated?.containerID, restartCount: restarts };
}

/**
 * Opens the log of one container instance. `pod`: the pod as the caller already holds it (an
 * owner's follower has it from its watch); otherwise it is read first.
 */
export async function openPodLog(
  t: KubeTransport,
  namespace: string,
  name: string,
  opts: PodLogOptions,
  signal?: AbortSignal,
  pod?: KubeObject,
): Promise<PodLogOpen> {
  const previous = opts.previous === true;
  if (!pod) {
    try {
      pod = (await t.getJson<KubeObject>({ path: podPath(namespace, name), signal })).body;
    } catch (e) {
      // A user may read logs without reading pods: the instance is then unknown, the log still read.
      if (!(e instanceof KubeApiError && e.status === 403)) return { ok: false, failure: podLogFailure(e, namespace, signal) };
    }
  }
  let container = opts.container;
  let defaultedFrom: string[] | undefined;
  if (!container && pod) {
    const d = defaultContainer(pod);
    container = d.name;
    if (d.all.length > 1) defaultedFrom = d.all;
  }
  const instance: ContainerInstance = {
    namespace,
    pod: name,
    container: container ?? '',
    previous,
    ...(pod && container ? instanceOf(pod, container, previous) : {}),
  };
  if (defaultedFrom) instance.defaultedFrom = defaultedFrom;
  let stream: StreamBody;
  try {
    stream = await t.openStream({
      path: `${podPath(namespace, name)}/log`,
      signal,
      accept: '*/*',
      query: {
        container,
        follow: opts.follow ? 'true' : undefined,
        previous: previous ? 'true' : undefined,
        tailLines: opts.tailLines,
        limitBytes: opts.limitBytes,
        sinceSeconds: opts.sinceSeconds,
        sinceTime: opts.sinceTime,
        timestamps: opts.timestamps ? 'true' : undefined,
      },
    });
  } catch (e) {
    return { ok: false, failure: podLogFailure(e, namespace, signal), instance };
  }
  let ended: PodLogEnd = { kind: 'ended', lines: 0, bytes: 0 };
  const state = { unterminated: false };
  const lines = readLines(stream, opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, namespace, signal, state, (e) => (ended = e));
  return { ok: true, log: { instance, lines, end: () => ended, unterminated: () => state.unterminated } };
}

/** The byte offset at or before `at` where no UTF-8 sequence is cut. */
function charBoundary(buf: Buffer, at: number): number {
  let i = at;
  while (i > 0 && (buf[i]! & 0xc0) === 0x80) i--;
  return i > 0 ? i : at;
}

/** The stream's lines, pulled one at a time (see the guarantees above). */
async function* readLines(
  stream: StreamBody,
  maxLineBytes: number,
  namespace: string,
  signal: AbortSignal | undefined,
  state: { unterminated: boolean },
  onEnd: (e: PodLogEnd) => void,
): AsyncGenerator<string> {
  let lines = 0;
  let bytes = 0;
  let partial: Buffer[] = [];
  let partialBytes = 0;
  const take = (b: Buffer) => {
    partial.push(b);
    partialBytes += b.length;
  };
  const flush = (): string => {
    const s = Buffer.concat(partial, partialBytes).toString('utf8');
    partial = [];
    partialBytes = 0;
    lines++;
    return s;
  };
  const onAbort = () => stream.destroy(abortReason(signal!));
  signal?.addEventListener('abort', onAbort, { once: true });
  let failure: PodLogFailure | undefined;
  try {
    if (signal?.aborted) throw abortReason(signal);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      let from = 0;
      while (from < chunk.length) {
        const nl = chunk.indexOf(0x0a, from);
        const stop = nl < 0 ? chunk.length : nl;
        let piece = chunk.subarray(from, stop);
        // A line past the bound is handed out in pieces: never more than maxLineBytes held.
        while (partialBytes + piece.length > maxLineBytes) {
          const room = maxLineBytes - partialBytes;
          const cut = room > 0 ? charBoundary(piece, room) : 0;
          take(piece.subarray(0, cut));
          piece = piece.subarray(cut);
          yield flush();
          if (signal?.aborted) throw abortReason(signal);
        }
        take(piece);
        if (nl < 0) break;
        yield flush();
        // Lines of a chunk already read are not handed out after the signal.
        if (signal?.aborted) throw abortReason(signal);
        from = nl + 1;
      }
    }
    if (!stream.complete && !(stream as { readableEnded?: boolean }).readableEnded) throw new Error(`pods/log in ${namespace}: connection closed`);
    if (partialBytes) {
      state.unterminated = true;
      yield flush();
    }
  } catch (e) {
    failure = podLogFailure(e, namespace, signal);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stream.destroy();
    onEnd(
      failure ? { kind: 'failed', lines, bytes, failure } : { kind: 'ended', lines, bytes, ...(state.unterminated ? { unterminated: true as const } : {}) },
    );
  }
}

/** The `timestamps=true` prefix of a line, split off: its time (ms, and ns within the second) and the rest. */
export function splitTimestamp(line: string): { time?: string; sortKey?: number; fraction?: number; text: string } {
  const sp = line.indexOf(' ');
  const m = sp > 0 ? /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/.exec(line.slice(0, sp)) : null;
  if (!m) return { text: line };
  const seconds = Date.parse(`${m[1]}${m[3]}`) / 1000;
  if (Number.isNaN(seconds)) return { text: line };
  const fraction = m[2] ? Number(m[2].slice(1).padEnd(9, '0')) : 0;
  return { time: line.slice(0, sp), sortKey: seconds, fraction, text: line.slice(sp + 1) };
}
