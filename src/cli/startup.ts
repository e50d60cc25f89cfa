/**
 * `kubeloop startup`: where the start-up time of pods went (core/startup), from the cluster or a
 * flight recording.
 *
 *   kubeloop startup [deployment/NAME|job/NAME|replicaset/NAME|pod/NAME] [--namespace NS | -A]
 *                    [--kubeconfig FILE] [--context NAME] [--recording FILE [--at TIME]] [--json] [--sources]
 *
 * Reads the pods and their Events once (a list each, with the user's rights), or what a recording
 * held at its end (or --at), and prints per rollout or Job the pods' phases, slowest first, with the
 * sources of the slowest pod's bounds (--sources: every pod's). --json: the report as one JSON object.
 * Exit 0 when printed, 1 on bad flags or an unusable kubeconfig or recording, 2 when pods cannot be read.
 */
import { parseArgs } from 'node:util';
import { KubeClient } from '../core/kube/client';
import { formatStartup } from '../core/startup/text';
import type { StartupSelection } from '../core/startup/report';
import { readStartupLive, readStartupRecorded } from '../app/startup/readStartup';
import { cliWriter } from './terminal';

const HELP = `usage: kubeloop startup [TARGET] [flags]

  TARGET                deployment/NAME, job/NAME, replicaset/NAME, statefulset/NAME,
                        daemonset/NAME or pod/NAME (default: every pod in the namespace)
  --namespace NS, -n NS the namespace (default: the context's, else "default")
  --all-namespaces, -A  every namespace
  --kubeconfig FILE     kubeconfig to use (default: $KUBECONFIG, then ~/.kube/config)
  --context NAME        context to use (default: the current context)
  --recording FILE      read a flight recording (kubeloop sync --record) instead of the cluster;
                        without --namespace, every namespace it holds
  --at TIME             with --recording: the instant to read (ISO time; default its end)
  --json                the report as one JSON object
  --sources             where every pod's bounds were read (default: the slowest pod's per group)
`;

const KINDS = ['deployment', 'job', 'replicaset', 'statefulset', 'daemonset', 'pod'];

export async function runStartup(argv: string[], signal: AbortSignal = new AbortController().signal): Promise<number> {
  const out = cliWriter(process.stdout);
  const err = cliWriter(process.stderr);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        namespace: { type: 'string', short: 'n' },
        'all-namespaces': { type: 'boolean', short: 'A' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        recording: { type: 'string' },
        at: { type: 'string' },
        json: { type: 'boolean' },
        sources: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    err.write(`kubeloop startup: ${(e as Error).message}\n\n${HELP}`);
    return 1;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out.write(HELP);
    return 0;
  }
  const bad = (m: string) => {
    err.write(`kubeloop startup: ${m}\n`);
    return 1;
  };
  if (positionals.length > 1) return bad('at most one TARGET');
  const sel: StartupSelection = {};
  if (positionals[0] !== undefined) {
    const [kind, name, more] = positionals[0].split('/');
    const k = kind?.toLowerCase().replace(/s$/, '') ?? '';
    if (!name || more !== undefined || !KINDS.includes(k)) return bad(`TARGET must be KIND/NAME with KIND one of ${KINDS.join(', ')}; got "${positionals[0]}"`);
    sel.target = { kind: k, name };
  }
  if (values.namespace !== undefined && values['all-namespaces']) return bad('--namespace and --all-namespaces exclude each other');
  const at = values.at !== undefined ? Date.parse(values.at) : undefined;
  if (at !== undefined && (Number.isNaN(at) || !values.recording)) return bad('--at needs --recording FILE and an ISO time');

  // JSON writes every pod's bounds: made at once, not after a row each.
  const detail = values.json ? 'bounds' : 'rows';
  let read;
  if (values.recording) {
    if (values.namespace !== undefined) sel.namespace = values.namespace;
    read = await readStartupRecorded(values.recording, sel, signal, at, detail);
    if ('error' in read) return bad(read.error);
  } else {
    let client: KubeClient;
    try {
      client = await KubeClient.fromKubeconfig({
        ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}),
        ...(values.context ? { context: values.context } : {}),
      });
    } catch (e) {
      return bad((e as Error).message);
    }
    if (!values['all-namespaces']) sel.namespace = values.namespace ?? (client.context.namespace || 'default');
    read = await readStartupLive(client, sel, signal, detail);
    if ('error' in read) {
      err.write(`kubeloop startup: ${read.error}\n`);
      return 2;
    }
  }
  for (const w of read.warnings) err.write(`kubeloop startup: warning: ${w}\n`);
  if (values.json) out.write(`${JSON.stringify({ from: read.from, groups: read.groups })}\n`);
  else out.write(formatStartup(read.groups, { sources: values.sources ? 'all' : 'slowest' }));
  return 0;
}
