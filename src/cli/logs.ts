/**
 * `kubeloop logs`: container logs with kubectl's flags where they mean the same.
 *
 *   kubeloop logs POD|pod/NAME|deployment/NAME|job/NAME [-c C] [-p] [-f] [--tail N] [--since D]
 *                 [--since-time T] [--timestamps] [--prefix] [--limit-bytes N] [-l SELECTOR]
 *                 [--all-containers] [-n NS] [--kubeconfig FILE] [--context NAME]
 *
 * As kubectl: one pod reads its default container (the kubectl.kubernetes.io/default-container
 * annotation, else the first, said on stderr when there were several); -l defaults --tail to 10;
 * --prefix tags each line `[pod/NAME/CONTAINER] `. Unlike kubectl, which reads one pod of a
 * Deployment or Job, deployment/NAME and job/NAME read all their pods (by ownerReferences),
 * interleaved by time and always tagged; followed, new pods and restarted containers join.
 *
 * Guarantees: the log is never held whole (lines are pulled as stdout drains: core's reader
 * pauses the stream meanwhile); to a terminal, control characters in the log are shown, not
 * obeyed (terminal.ts), to a pipe it is written as it is. Exit 0 when read; 1 when the log cannot
 * be read (the reason on stderr: a 403 names the missing right); 2 for bad flags.
 */
import { parseArgs } from 'node:util';
import { KubeClient } from '../core/kube/client';
import type { LogOwner, MergedLine, PodLogFailure, PodLogOptions } from '../core/kube';
import { cliWriter, terminalSafe, type Writer } from './terminal';

export const LOGS_HELP = `usage: kubeloop logs POD|deployment/NAME|job/NAME [flags]
       kubeloop logs -l SELECTOR [flags]

  -c, --container C     the container to read (default: the pod's default container)
  -p, --previous        the previous instance of the container (the one before the last restart)
  -f, --follow          follow the log as it is written (until the instance ends, or Ctrl-C)
  --tail N              the last N lines (default: all; 10 with -l)
  --since D             lines newer than a duration, e.g. 5s, 2m, 3h
  --since-time T        lines after an RFC3339 time
  --timestamps          prefix each line with its RFC3339Nano time
  --prefix              prefix each line with [pod/NAME/CONTAINER]
  --limit-bytes N       at most N bytes of each log
  -l, --selector S      the pods of a label selector, interleaved by time
  --all-containers      every container of the pods
  -n, --namespace NS    the namespace (default: the context's)
  --kubeconfig FILE     kubeconfig to use (default: $KUBECONFIG, then ~/.kube/config)
  --context NAME        context to use (default: the current context)

deployment/NAME and job/NAME read all the owner's pods, interleaved by time and tagged (kubectl
reads one of them).
`;

export interface LogsIo {
  stdout: Writer & { once?(event: 'drain', fn: () => void): unknown };
  stderr: Writer;
  signal?: AbortSignal;
}

interface LogsFlags {
  target?: string;
  namespace?: string;
  kubeconfig?: string;
  context?: string;
  container?: string;
  previous: boolean;
  follow: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  sinceTime?: string;
  timestamps: boolean;
  prefix: boolean;
  limitBytes?: number;
  selector?: string;
  allContainers: boolean;
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration (as kubectl's --since flag reads it), in ms. */
export function parseGoDuration(value: string): number | undefined {
  if (value === '0') return 0;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let ms = 0;
  let at = 0;
  for (let m = part.exec(value); m; m = part.exec(value)) {
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
    at = part.lastIndex;
  }
  return at > 0 && at === value.length ? ms : undefined;
}

function wholeNumber(flag: string, v: string | undefined, min: number): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v) || Number(v) < min) throw new Error(`${flag}: invalid value "${v}"`);
  return Number(v);
}

export function parseLogsArgs(argv: string[]): LogsFlags | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      container: { type: 'string', short: 'c' },
      previous: { type: 'boolean', short: 'p' },
      follow: { type: 'boolean', short: 'f' },
      tail: { type: 'string' },
      since: { type: 'string' },
      'since-time': { type: 'string' },
      timestamps: { type: 'boolean' },
      prefix: { type: 'boolean' },
      'limit-bytes': { type: 'string' },
      selector: { type: 'string', short: 'l' },
      'all-containers': { type: 'boolean' },
      namespace: { type: 'string', short: 'n' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  if (positionals.length > 1) throw new Error(`expected one POD or TYPE/NAME, got: ${positionals.join(' ')}`);
  if (!positionals.length && !values.selector) throw new Error('a pod, deployment/NAME, job/NAME or -l SELECTOR is required');
  if (positionals.length && values.selector) throw new Error('only one of a name or -l SELECTOR may be given');
  if (values.since !== undefined && values['since-time'] !== undefined) throw new Error('at most one of --since-time or --since may be specified');
  // kubectl: --tail -1 (its default) is all lines; -l without --tail is the last 10.
  let tailLines = wholeNumber('--tail', values.tail, -1);
  if (tailLines === -1) tailLines = undefined;
  else if (tailLines === undefined && values.selector) tailLines = 10;
  let sinceSeconds: number | undefined;
  if (values.since !== undefined) {
    const ms = parseGoDuration(values.since);
    if (ms === undefined || ms < 0) throw new Error(`--since: invalid duration "${values.since}" (e.g. 5s, 2m, 3h)`);
    if (ms > 0) sinceSeconds = Math.ceil(ms / 1000);
  }
  const sinceTime = values['since-time'];
  if (sinceTime !== undefined && (!/^\d{4}-\d\d-\d\dT/.test(sinceTime) || Number.isNaN(Date.parse(sinceTime)))) {
    throw new Error(`--since-time: "${sinceTime}" is not an RFC3339 time`);
  }
  const limitBytes = wholeNumber('--limit-bytes', values['limit-bytes'], 1);
  return {
    target: positionals[0],
    namespace: values.namespace,
    kubeconfig: values.kubeconfig,
    context: values.context,
    container: values.container,
    previous: !!values.previous,
    follow: !!values.follow,
    tailLines,
    sinceSeconds,
    sinceTime,
    timestamps: !!values.timestamps,
    prefix: !!values.prefix,
    limitBytes,
    selector: values.selector,
    allContainers: !!values['all-containers'],
  };
}

/** What the target names: one pod, or an owner whose pods are read together. */
function targetOf(f: LogsFlags): { pod: string } | { owner: LogOwner } {
  if (f.selector !== undefined) return { owner: { kind: 'selector', selector: f.selector } };
  const t = f.target!;
  const slash = t.indexOf('/');
  if (slash < 0) return { pod: t };
  const type = t.slice(0, slash).toLowerCase();
  const name = t.slice(slash + 1);
  if (['pod', 'pods', 'po'].includes(type)) return { pod: name };
  if (['deployment', 'deployments', 'deploy', 'deployment.apps', 'deployments.apps'].includes(type)) return { owner: { kind: 'deployment', name } };
  if (['job', 'jobs', 'job.batch', 'jobs.batch'].includes(type)) return { owner: { kind: 'job', name } };
  throw new Error(`cannot read the logs of "${t}": name a pod, deployment/NAME, job/NAME, or use -l SELECTOR`);
}

function failureText(f: PodLogFailure): string {
  return f.detail ? `${f.message} (${f.detail})` : f.message;
}

export async function runLogs(argv: string[], io: LogsIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const err = cliWriter(io.stderr);
  let flags: LogsFlags | 'help';
  let target: ReturnType<typeof targetOf>;
  try {
    flags = parseLogsArgs(argv);
    if (flags === 'help') {
      io.stdout.write(LOGS_HELP);
      return 0;
    }
    target = targetOf(flags);
  } catch (e) {
    err.write(`kubeloop logs: ${(e as Error).message}\n\n${LOGS_HELP}`);
    return 2;
  }
  let client: KubeClient;
  try {
    client = await KubeClient.fromKubeconfig({
      ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}),
      ...(flags.context ? { context: flags.context } : {}),
    });
  } catch (e) {
    err.write(`kubeloop logs: ${(e as Error).message}\n`);
    return 1;
  }
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error('interrupted'));
  io.signal?.addEventListener('abort', onSignal, { once: true });
  if (!io.signal) process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  const tty = io.stdout.isTTY === true;
  // Waits for stdout to drain: the reader's next line is pulled only then (backpressure).
  const write = (s: string): void | Promise<void> => {
    if (io.stdout.write(tty ? terminalSafe(s) : s) !== false || !io.stdout.once) return;
    return new Promise<void>((resolve) => io.stdout.once!('drain', resolve));
  };
  const namespace = flags.namespace ?? client.context.namespace ?? 'default';
  const opts: PodLogOptions = {
    previous: flags.previous,
    follow: flags.follow,
    timestamps: flags.timestamps,
    ...(flags.tailLines !== undefined ? { tailLines: flags.tailLines } : {}),
    ...(flags.limitBytes !== undefined ? { limitBytes: flags.limitBytes } : {}),
    ...(flags.sinceSeconds !== undefined ? { sinceSeconds: flags.sinceSeconds } : {}),
    ...(flags.sinceTime !== undefined ? { sinceTime: flags.sinceTime } : {}),
  };
  try {
    if ('pod' in target) return await podLogs(client, namespace, target.pod, flags, opts, write, err, stop.signal);
    const tagged = target.owner.kind !== 'selector' || flags.prefix;
    const line = (l: MergedLine) => write(`${tagged ? `[${l.source}] ` : ''}${flags.timestamps && l.time ? `${l.time} ` : ''}${l.text}\n`);
    let failed = false;
    const end = await client.ownerLogs(
      namespace,
      target.owner,
      { ...opts, ...(flags.container ? { container: flags.container } : {}), allContainers: flags.allContainers },
      {
        onLine: line,
        onError: (source, f) => {
          failed = true;
          err.write(`kubeloop logs: ${source}: ${failureText(f)}\n`);
        },
      },
      stop.signal,
    );
    if (end.kind === 'failed') {
      if (end.failure.reason === 'aborted') return 0;
      err.write(`kubeloop logs: ${failureText(end.failure)}\n`);
      return 1;
    }
    return failed ? 1 : 0;
  } finally {
    io.signal?.removeEventListener('abort', onSignal);
    if (!io.signal) process.removeListener('SIGINT', onSignal).removeListener('SIGTERM', onSignal);
    client.close();
  }
}

/** One pod: its container (or each container in turn with --all-containers, as kubectl reads them). */
async function podLogs(
  client: KubeClient,
  namespace: string,
  pod: string,
  flags: LogsFlags,
  opts: PodLogOptions,
  write: (s: string) => void | Promise<void>,
  err: Writer,
  signal: AbortSignal,
): Promise<number> {
  let containers: (string | undefined)[] = [flags.container];
  if (flags.allContainers) {
    const first = await client.podLog(namespace, pod, { ...opts, tailLines: 0, follow: false }, signal);
    if (!first.ok) return fail(first.failure, err);
    for await (const _ of first.log.lines) break;
    containers = first.log.instance.defaultedFrom?.filter((c) => !c.endsWith(' (init)')) ?? [first.log.instance.container];
  }
  for (const container of containers) {
    const open = await client.podLog(namespace, pod, { ...opts, ...(container ? { container } : {}) }, signal);
    if (!open.ok) return fail(open.failure, err);
    const inst = open.log.instance;
    if (inst.defaultedFrom && !flags.allContainers) err.write(`Defaulted container "${inst.container}" out of: ${inst.defaultedFrom.join(', ')}\n`);
    const tag = flags.prefix ? `[pod/${pod}/${inst.container}] ` : '';
    for await (const line of open.log.lines) {
      // The log's last line keeps its lack of a newline (--limit-bytes cut it), as kubectl prints it.
      const w = write(`${tag}${line}${open.log.unterminated() ? '' : '\n'}`);
      if (w) await w;
    }
    const end = open.log.end();
    if (end.kind === 'failed') return fail(end.failure, err);
  }
  return 0;
}

function fail(f: PodLogFailure, err: Writer): number {
  if (f.reason === 'aborted') return 0;
  err.write(`kubeloop logs: ${failureText(f)}\n`);
  return 1;
}
