/**
 * GET pods/{name}/log (`kubectl logs`): the container logs the kubelet simulation writes
 * (../kubelet/logs.ts), read with the PodLogOptions a real apiserver and kubelet accept
 * (./logslice.ts): container, follow, previous, tailLines, limitBytes, sinceSeconds, sinceTime,
 * timestamps.
 *
 * Which instance is read follows the kubelet's validateContainerLogStatus: `previous` reads the
 * last terminated instance (400 `previous terminated container "c" in pod "p" not found` without
 * one); otherwise the running instance, else the terminated one, else the last terminated one
 * (a container waiting in CrashLoopBackOff), else 400 `... is waiting to start: REASON`. The
 * apiserver's own errors stay: 404 for a missing pod, 400 when the container must be named or
 * is not in the pod. A pod the kubelet adopted as already running (generated pods) gets the log
 * its spec would have written since its status' startedAt.
 *
 * Guarantees for follow=true: a chunked stream that sends each line as it is written and ends
 * when the instance ends (exit, kill, pod deletion), when limitBytes are sent, when the client
 * goes away, or when the server stops; its one timer and its subscriptions are released then.
 *
 * A generated log (GeneratedLog: a pod annotated for one, any size) is streamed as the client
 * reads it: a chunk is written only once the previous one drained, so neither side holds it whole.
 * Followed, the stream then stays open until the client goes away or the server stops.
 */
import type { DemoObject } from '../store';
import { ContainerLog, GeneratedLog, type LogStore } from '../kubelet/logs';
import { planOutput } from '../kubelet/output';
import type { ContainerSpec } from '../kubelet/probes';
import type { ServerContext, Target } from './serverContext';
import type { Exchange } from './exchange';
import { getNamed } from './list';
import { cutToBytes, formatEntry, parseLogOptions, selectEntries, type LogOptions } from './logslice';
import { badRequest } from './status';

type Obj = Record<string, any>;

/** Registers a cleanup run when the server stops; returns its removal. */
export type Track = (end: () => void) => () => void;

function containerStatus(pod: DemoObject, name: string): Obj | undefined {
  const st = (pod.status ?? {}) as Obj;
  return [...((st.containerStatuses as Obj[] | undefined) ?? []), ...((st.initContainerStatuses as Obj[] | undefined) ?? [])].find((s) => s?.name === name);
}

/** The container ID and times of the instance to read, as the kubelet picks it. */
function pickInstance(pod: DemoObject, container: string, previous: boolean): { id: string; startedAt?: string; finishedAt?: string } {
  const podName = pod.metadata.name;
  const st = containerStatus(pod, container);
  const state = (st?.state ?? {}) as Obj;
  const last = st?.lastState?.terminated as Obj | undefined;
  if (previous) {
    if (!last?.containerID) throw badRequest(`previous terminated container "${container}" in pod "${podName}" not found`);
    return { id: String(last.containerID), startedAt: last.startedAt, finishedAt: last.finishedAt };
  }
  // A status written without a containerID (by hand, by a test) still reads as running: its spec's log.
  if (state.running) return { id: String(st?.containerID ?? ''), startedAt: state.running.startedAt };
  if (state.terminated?.containerID)
    return { id: String(state.terminated.containerID), startedAt: state.terminated.startedAt, finishedAt: state.terminated.finishedAt };
  if (last?.containerID) return { id: String(last.containerID), startedAt: last.startedAt, finishedAt: last.finishedAt };
  if (state.terminated) throw badRequest(`container "${container}" in pod "${podName}" is terminated`);
  const reason = String(state.waiting?.reason ?? 'ContainerCreating');
  throw badRequest(`container "${container}" in pod "${podName}" is waiting to start: ${reason}`);
}

/** The kubelet's log of that instance, or the one its spec would have written (adopted pods). */
function logOf(logs: LogStore, pod: DemoObject, container: string, previous: boolean): ContainerLog {
  const inst = pickInstance(pod, container, previous);
  const kept = logs.find(pod.metadata.uid ?? '', container, inst.id);
  if (kept) return kept;
  const spec = pod.spec as { containers?: ContainerSpec[]; initContainers?: ContainerSpec[] } | undefined;
  const c = [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])].find((x) => x.name === container)!;
  const plan = planOutput(c, { hostIP: (pod.status as Obj | undefined)?.hostIP, podName: pod.metadata.name });
  const start = Date.parse(inst.startedAt ?? '') || Date.now();
  const end = inst.finishedAt ? Date.parse(inst.finishedAt) || Date.now() : undefined;
  return new ContainerLog(inst.id, plan, start, 1, Date.now, end);
}

export function handlePodLog(ctx: ServerContext, t: Target, x: Exchange, track?: Track): void {
  const pod = getNamed(ctx, t, x);
  const opts = parseLogOptions(x.query, pod.metadata.name, Date.now());
  const spec = (pod.spec as { containers?: Obj[]; initContainers?: Obj[] } | undefined) ?? {};
  const names = (spec.containers ?? []).map((c) => String(c.name));
  const all = [...names, ...(spec.initContainers ?? []).map((c) => String(c.name))];
  let container = opts.container ?? '';
  if (!container) {
    if (names.length !== 1) {
      throw badRequest(`a container name must be specified for pod ${pod.metadata.name}, choose one of: [${names.join(' ')}]`);
    }
    container = names[0]!;
  }
  if (!all.includes(container)) throw badRequest(`container ${container} is not valid for pod ${pod.metadata.name}`);
  const generated = GeneratedLog.bytesOf(pod.metadata.annotations as Record<string, string> | undefined);
  if (generated !== undefined) return serveGenerated(pod, container, opts, generated, x, track);
  const log = logOf(ctx.logs, pod, container, opts.previous);
  if (x.closed) return;
  const { entries, next } = log.read();
  const text = selectEntries(entries, opts)
    .map((e) => formatEntry(e, opts.timestamps))
    .join('');
  const first = cutToBytes(text, opts.limitBytes ?? Infinity);
  const headers = { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' };
  const done = opts.limitBytes !== undefined && first.length >= opts.limitBytes;
  if (!opts.follow || log.ended || done) {
    x.res.writeHead(200, { ...headers, 'Content-Length': String(first.length) });
    x.res.end(first);
    return;
  }
  x.res.writeHead(200, headers);
  if (first.length) x.res.write(first);
  follow(ctx, pod, container, log, x, opts, next, (opts.limitBytes ?? Infinity) - first.length, track);
}

/** Streams the lines written after `cursor` until the instance ends (see the guarantees above). */
function follow(
  ctx: ServerContext,
  pod: DemoObject,
  container: string,
  log: ContainerLog,
  x: Exchange,
  opts: LogOptions,
  cursor: number,
  budget: number,
  track?: Track,
): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    if (timer) clearTimeout(timer);
    unsubscribeLog();
    unsubscribeStore();
    untrack?.();
    x.res.off('close', finish);
    if (!x.closed) x.res.end();
  };
  const pump = () => {
    timer = undefined;
    if (finished) return;
    if (x.closed) return finish();
    const r = log.read(cursor);
    cursor = r.next;
    const text = r.entries.map((e) => formatEntry(e, opts.timestamps)).join('');
    if (text) {
      const chunk = cutToBytes(text, budget);
      budget -= chunk.length;
      x.res.write(chunk);
      if (budget <= 0) return finish();
    }
    if (log.ended) return finish();
    const wait = log.untilNext();
    if (wait !== undefined) timer = setTimeout(pump, Math.min(wait + 1, 2 ** 31 - 1));
  };
  const soon = () => {
    if (finished) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(pump, 0);
  };
  const unsubscribeLog = log.subscribe(soon);
  // An adopted pod's log has no kubelet to end it: the pod's status (or its deletion) does.
  const uid = pod.metadata.uid;
  const unsubscribeStore = ctx.store.subscribe((e) => {
    if (e.group !== '' || e.resource !== 'pods' || e.object.metadata.uid !== uid) return;
    const st = e.type === 'DELETED' ? undefined : containerStatus(e.object, container);
    const terminated = st?.state?.terminated ?? st?.lastState?.terminated;
    if (e.type === 'DELETED' || !st?.state?.running || st.containerID !== log.id) {
      log.end(terminated?.containerID === log.id ? Date.parse(terminated.finishedAt) || undefined : undefined);
      soon();
    }
  });
  const untrack = track?.(finish);
  x.res.on('close', finish);
  pump();
}

const GENERATED_CHUNK_BYTES = 64 * 1024;

/** A generated log read with the options (see above): tail, since, timestamps, limitBytes. */
function serveGenerated(pod: DemoObject, container: string, opts: LogOptions, bytes: number, x: Exchange, track?: Track): void {
  const inst = pickInstance(pod, container, opts.previous);
  const log = new GeneratedLog(bytes, Date.parse(inst.startedAt ?? '') || Date.now());
  let i = opts.tailLines === undefined ? 0 : Math.max(0, log.lines - opts.tailLines);
  if (opts.since !== undefined) i = Math.max(i, log.firstAtOrAfter(opts.since));
  let budget = opts.limitBytes ?? Infinity;
  if (x.closed) return;
  x.res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' });
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    untrack?.();
    x.res.off('close', finish);
    x.res.off('drain', pump);
    if (!x.closed) x.res.end();
  };
  const untrack = track?.(finish);
  x.res.on('close', finish);
  function pump(): void {
    while (!finished && i < log.lines && budget > 0) {
      const parts: string[] = [];
      let size = 0;
      for (; i < log.lines && size < GENERATED_CHUNK_BYTES; i++) {
        const line = formatEntry({ wallMs: log.wallOf(i), stream: 'stdout', text: log.text(i) }, opts.timestamps);
        parts.push(line);
        size += line.length;
      }
      const chunk = cutToBytes(parts.join(''), budget);
      budget -= chunk.length;
      if (!x.res.write(chunk)) return void x.res.once('drain', pump);
    }
    if (!opts.follow || budget <= 0) finish();
  }
  pump();
}
