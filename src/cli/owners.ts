/**
 * `kubeloop owners KIND/NAME [-n NS] [--json]`: an object's owners (up to the roots) and what it
 * owns (down to the leaves), from one metadata-only load of every listable type (ownerReferences
 * are metadata; each object is indexed as its page arrives and then let go). KIND is what kubectl
 * takes: a kind, a resource, its singular, a short name, or `resource.group`.
 *
 * Exit status: 0 found; 1 not found or a failed load; 2 a usage error.
 */
import { KubeClient, KubeConfigError, loadKubeContext } from '../core/kube';
import type { ApiResource } from '../core/kube/discovery/parse';
import { asStoredObject } from '../core/kube/objects/types';
import { ClusterLoader } from '../core/loader/clusterLoader';
import { OwnerIndex, type RelationTree } from '../core/relations/ownerIndex';
import { cliWriter } from './terminal';

export const OWNERS_USAGE = `usage: kubeloop owners KIND/NAME [flags]

An object's owners (ownerReferences, up to the roots) and the objects it owns (down to the leaves).

flags:
  -n, --namespace NS   the object's namespace (default: the context's, or "default")
      --json           one JSON object: the object, its owners tree and its dependents tree
      --kubeconfig PATH
      --context NAME`;

interface OwnersFlags {
  kind: string;
  name: string;
  namespace?: string;
  json: boolean;
  kubeconfig?: string;
  context?: string;
}

function parse(argv: string[]): OwnersFlags | 'help' {
  const f: Partial<OwnersFlags> & { json: boolean } = { json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--help' || a === '-h') return 'help';
    else if (a === '--json') f.json = true;
    else if (a === '-n' || a === '--namespace') f.namespace = value();
    else if (a === '--kubeconfig') f.kubeconfig = value();
    else if (a === '--context') f.context = value();
    else if (a.startsWith('-')) throw new Error(`unknown flag ${a}`);
    else if (f.kind !== undefined) throw new Error(`one KIND/NAME only (got also ${a})`);
    else {
      const s = a.indexOf('/');
      if (s <= 0 || s === a.length - 1) throw new Error(`expected KIND/NAME, got ${a}`);
      f.kind = a.slice(0, s);
      f.name = a.slice(s + 1);
    }
  }
  if (f.kind === undefined) throw new Error('KIND/NAME is required');
  return f as OwnersFlags;
}

/** The type KIND names, as kubectl resolves it (kind, plural, singular, short name, `resource.group`). */
export function resolveKind(types: readonly ApiResource[], kind: string): ApiResource | undefined {
  const k = kind.toLowerCase();
  const dot = k.indexOf('.');
  const [name, group] = dot < 0 ? [k, undefined] : [k.slice(0, dot), k.slice(dot + 1)];
  return types.find(
    (t) =>
      (group === undefined || t.group === group) &&
      (t.resource === name || t.singular === name || t.kind.toLowerCase() === name || t.shortNames.includes(name)),
  );
}

const typeKey = (t: { group: string; resource: string }) => (t.group ? `${t.resource}.${t.group}` : t.resource);

function lines(t: RelationTree, depth: number, out: string[]): void {
  for (const c of t.children) {
    const n = c.node;
    const notes = [c.controller ? 'controller' : '', n.virtual ? 'not found' : '', c.seen ? 'shown above' : ''].filter(Boolean);
    out.push(`${'  '.repeat(depth)}${n.kind} ${n.namespace ? `${n.namespace}/` : ''}${n.name}${notes.length ? ` (${notes.join(', ')})` : ''}`);
    lines(c, depth + 1, out);
  }
  if (t.omitted) out.push(`${'  '.repeat(depth)}... ${t.omitted} more`);
}

export async function runOwners(argv: string[], io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; signal: AbortSignal }): Promise<number> {
  const out = cliWriter(io.stdout);
  const err = cliWriter(io.stderr);
  let flags: OwnersFlags | 'help';
  try {
    flags = parse(argv);
  } catch (e) {
    err.write(`kubeloop owners: ${(e as Error).message}\n\n${OWNERS_USAGE}\n`);
    return 2;
  }
  if (flags === 'help') {
    out.write(`${OWNERS_USAGE}\n`);
    return 0;
  }
  let client: KubeClient;
  let namespace: string;
  try {
    const ctx = loadKubeContext({ kubeconfig: flags.kubeconfig, context: flags.context });
    namespace = flags.namespace ?? (ctx.namespace || 'default');
    client = await KubeClient.connect(ctx, { ioThread: false });
  } catch (e) {
    err.write(`kubeloop owners: ${e instanceof KubeConfigError ? e.message : `cannot set up a client: ${(e as Error).message}`}\n`);
    return 1;
  }
  try {
    const index = new OwnerIndex();
    const loader = new ClusterLoader(client, {
      transfer: 'metadata',
      transform: (obj, task) => {
        const o = asStoredObject(obj);
        if (o && task.gvr.resource !== 'events') index.upsert(o, typeKey(task.gvr), task.kind);
        return undefined;
      },
    });
    const { summary, plan } = await loader.load(io.signal);
    if (summary.outcome === 'failed' || !plan) {
      err.write(`kubeloop owners: the load failed: ${summary.error instanceof Error ? summary.error.message : String(summary.error)}\n`);
      return 1;
    }
    const type = resolveKind(plan.types, flags.kind);
    if (!type) {
      err.write(`kubeloop owners: the server has no resource type "${flags.kind}"\n`);
      return 1;
    }
    const ns = type.namespaced ? namespace : undefined;
    const uid = index.find(typeKey(type), flags.name, ns);
    if (!uid) {
      err.write(
        `kubeloop owners: ${typeKey(type)} "${flags.name}" not found${ns ? ` in namespace "${ns}"` : ''}${summary.outcome === 'partial' ? ' (some types failed to load)' : ''}\n`,
      );
      return 1;
    }
    const owners = index.ownersOf(uid)!;
    const dependents = index.dependentsOf(uid)!;
    if (flags.json) {
      out.write(
        `${JSON.stringify({ object: owners.node, owners: owners.children, dependents: dependents.children, ...(dependents.omitted ? { omitted: dependents.omitted } : {}) })}\n`,
      );
      return 0;
    }
    const text: string[] = ['Owners:'];
    lines(owners, 1, text);
    if (!owners.children.length) text.push('  (none)');
    text.push(`Object: ${owners.node.kind} ${ns ? `${ns}/` : ''}${owners.node.name}`, 'Owned:');
    lines(dependents, 1, text);
    if (!dependents.children.length && !dependents.omitted) text.push('  (none)');
    out.write(`${text.join('\n')}\n`);
    return 0;
  } finally {
    client.close();
  }
}
