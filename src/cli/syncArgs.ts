/**
 * `kubeloop sync`'s flags: parsed and checked before anything connects. Errors are values (the
 * message, exit status 1); nothing here does I/O.
 */
import { parseArgs } from 'node:util';
import { parseRequestTimeout, REQUEST_TIMEOUT_HELP } from './requestTimeout';

/** --freshness's table by default once a minute: the watch cache's bookmark interval, the step a current type's ages move in. */
const DEFAULT_FRESHNESS_PERIOD_MS = 60_000;

export const SYNC_HELP = `usage: kubeloop sync [flags]

  --kubeconfig FILE     kubeconfig to use (default: $KUBECONFIG, then ~/.kube/config)
  --context NAME        context to use (default: the current context)
  --namespace NS, -n NS watch namespace NS; repeatable (default: all namespaces)
  --node NAME           only pods bound to node NAME, as that node's kubelet sees them (default: all nodes)
  --consistency-period SECONDS
                        how often pods are listed again from the watch cache to catch missed
                        watch events (default: 300)
  --duration SECONDS    stop after this long (default: until Ctrl-C)
  --request-timeout D   deadline of one server request, its whole answer included (kubectl's flag):
                        seconds, or a duration such as 30s, 1m; 0 = none (default 0). Not watches:
                        they are long-running (each ends within 10 min and is resumed)
  --no-protobuf         ask for JSON only (default: protobuf where the server offers it and KubeLoop
                        reads it: built-in kinds, metadata-only reads; JSON otherwise)
  --json                one JSON object per iteration: at, t, source, op, key, handler, durationMs, outcome
                        (and message, node, uid, data, inferred when known)
  --workers             with --json, also the pod workers' syncs (source "podworker")
  --freshness           is each watched type current: a table per type (last event and bookmark,
                        last relist and why, last consistency check, stale or current) every
                        --freshness-period and at exit, with the run's API cost (requests, bytes,
                        429s, Retry-After, flow schema and priority level); a line per change of a
                        type's state (with --json: a {"freshness": ...} record per change, and
                        {"apiCost": ...} at exit)
  --freshness-period D  how often the table is printed: seconds, or a duration such as 30s, 1m;
                        0 = only at exit (default 60s)
  --kubelet-log FILE    follow a real kubelet's -v=4 log (a node this machine runs, e.g. the lab's)
                        and print its lines beside KubeLoop's iterations; needs --node (default: the
                        log the context's kubeloop.dev/kubelet-logs extension names for the node,
                        as the lab's kubeconfig does)
  --compare             with the kubelet's log: at the end, the differential of the two (matched in
                        order, iterations without a counterpart, lag)
  --watch TYPE          also watch TYPE (e.g. configmaps, secrets, deployments.apps); repeatable
  --record FILE         write a flight recording to FILE: every watch delta, Event and timeline
                        event, with keyframes; flushed every second (read it with kubeloop export)
  --record-max-mb N     bound of the recording's files together (default 1024)
  --record-max-hours H  history the recording keeps (default 24)
  --record-keyframe-seconds S
                        a keyframe at most this often while things change (default 600; see docs/recorder.md)
`;

/** The flags of one `kubeloop sync` run, checked. */
export interface SyncFlags {
  kubeconfig?: string;
  context?: string;
  /** Empty: all namespaces. */
  namespaces: string[];
  node?: string;
  consistencyPeriodMs?: number;
  durationMs?: number;
  requestTimeoutMs?: number;
  /** --no-protobuf: every list and watch asks for JSON. */
  noProtobuf?: boolean;
  json: boolean;
  workers: boolean;
  /** --freshness: the table every `periodMs` (0: only at exit) and a record per change of a type's state. */
  freshness?: { periodMs: number };
  kubeletLog?: string;
  compare: boolean;
  watch: string[];
  record?: { path: string; maxBytes?: number; maxAgeMs?: number; keyframeEveryMs?: number };
}

/** Why the flags are unusable; `withHelp`: the usage text follows (flags the parser did not know). */
export interface SyncFlagsError {
  error: string;
  withHelp?: boolean;
}

// A DNS-1123 subdomain, as node names are; anything else would only be a confusing field selector.
const NODE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** argv -> the run's flags, 'help', or why not. */
export function parseSyncArgs(argv: string[]): SyncFlags | 'help' | SyncFlagsError {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        namespace: { type: 'string', short: 'n', multiple: true },
        node: { type: 'string' },
        'consistency-period': { type: 'string' },
        duration: { type: 'string' },
        'request-timeout': { type: 'string' },
        'no-protobuf': { type: 'boolean' },
        json: { type: 'boolean' },
        workers: { type: 'boolean' },
        freshness: { type: 'boolean' },
        'freshness-period': { type: 'string' },
        'kubelet-log': { type: 'string' },
        compare: { type: 'boolean' },
        watch: { type: 'string', multiple: true },
        record: { type: 'string' },
        'record-max-mb': { type: 'string' },
        'record-max-hours': { type: 'string' },
        'record-keyframe-seconds': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    return { error: (e as Error).message, withHelp: true };
  }
  if (values.help) return 'help';
  try {
    const durationMs = seconds('--duration', values.duration);
    const requestTimeoutMs = values['request-timeout'] !== undefined ? parseRequestTimeout(values['request-timeout']) : undefined;
    const consistencyPeriodMs = seconds('--consistency-period', values['consistency-period']);
    const node = values.node;
    if (values['kubelet-log'] !== undefined && node === undefined) return { error: '--kubelet-log needs --node NAME (the node whose kubelet writes that log)' };
    if (node !== undefined && !NODE_NAME.test(node)) return { error: `--node must be a node name (lower-case letters, digits, '-' and '.'), got "${node}"` };
    const freshnessPeriod = values['freshness-period'];
    if (freshnessPeriod !== undefined && !values.freshness) return { error: '--freshness-period needs --freshness' };
    const freshnessPeriodMs = freshnessPeriod === undefined ? DEFAULT_FRESHNESS_PERIOD_MS : duration('--freshness-period', freshnessPeriod);
    const keyframeEveryMs = positive('record-keyframe-seconds', values['record-keyframe-seconds'], 1000);
    const maxBytes = positive('record-max-mb', values['record-max-mb'], 1024 * 1024);
    const maxAgeMs = positive('record-max-hours', values['record-max-hours'], 3600_000);
    if ((maxBytes !== undefined || maxAgeMs !== undefined || keyframeEveryMs !== undefined) && !values.record)
      return { error: '--record-max-mb, --record-max-hours and --record-keyframe-seconds need --record FILE' };
    return {
      ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}),
      ...(values.context ? { context: values.context } : {}),
      namespaces: values.namespace ?? [],
      ...(node !== undefined ? { node } : {}),
      ...(consistencyPeriodMs !== undefined ? { consistencyPeriodMs } : {}),
      ...(durationMs !== undefined ? { durationMs } : {}),
      ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
      ...(values['no-protobuf'] ? { noProtobuf: true } : {}),
      json: !!values.json,
      workers: !!values.workers,
      ...(values.freshness ? { freshness: { periodMs: freshnessPeriodMs } } : {}),
      ...(values['kubelet-log'] !== undefined ? { kubeletLog: values['kubelet-log'] } : {}),
      compare: !!values.compare,
      watch: values.watch ?? [],
      ...(values.record
        ? {
            record: {
              path: values.record,
              ...(maxBytes !== undefined ? { maxBytes } : {}),
              ...(maxAgeMs !== undefined ? { maxAgeMs } : {}),
              ...(keyframeEveryMs !== undefined ? { keyframeEveryMs } : {}),
            },
          }
        : {}),
    };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** A positive number of seconds, in ms; undefined when the flag is absent. */
function seconds(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const s = Number(v);
  if (!Number.isFinite(s) || s <= 0) throw new Error(`${flag} must be a positive number of seconds, got "${v}"`);
  return s * 1000;
}

/** A duration as kubectl reads one (seconds, or 30s, 1m), in ms; 0 allowed. */
function duration(flag: string, v: string): number {
  try {
    return parseRequestTimeout(v);
  } catch {
    throw new Error(`${flag}: invalid value "${v}": must be ${REQUEST_TIMEOUT_HELP}`);
  }
}

/** A positive number times `scale`; undefined when the flag is absent. */
function positive(name: string, v: string | undefined, scale: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got "${v}"`);
  return n * scale;
}
