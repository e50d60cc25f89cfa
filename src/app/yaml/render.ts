/**
 * An object as the read-only YAML document shows it. No 'vscode' import.
 *
 * Secrets: every value of `data` and `stringData` is replaced by `<masked: N bytes>` (N is the
 * decoded size), and so is the `kubectl.kubernetes.io/last-applied-configuration` annotation, which
 * `kubectl apply` fills with the whole Secret including its data. There is deliberately no setting
 * to unmask: the document lives in an editor tab (screen shares, screenshots, "copy all", chat
 * extensions that read open editors) and a setting would persist and sync across machines; a user
 * who needs a value reads that one value with kubectl, where the act is explicit.
 * managedFields are dropped: they are large and serve server-side apply, not a reader.
 */
import { dump } from 'js-yaml';
import type { ObjectAddress } from './address';

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

type Obj = Record<string, unknown>;

function masked(bytes: number): string {
  return `<masked: ${bytes} byte${bytes === 1 ? '' : 's'}>`;
}

export function isSecret(a: Pick<ObjectAddress, 'group' | 'resource'>, obj: Obj): boolean {
  return (a.group === '' && a.resource === 'secrets') || (obj.kind === 'Secret' && (obj.apiVersion === 'v1' || obj.apiVersion === undefined));
}

/** A copy of the object with Secret values masked and managedFields dropped. Never mutates `obj`. */
export function redactObject(a: Pick<ObjectAddress, 'group' | 'resource'>, obj: Obj): Obj {
  const out: Obj = { ...obj };
  const meta = typeof obj.metadata === 'object' && obj.metadata !== null ? { ...(obj.metadata as Obj) } : undefined;
  if (meta) {
    delete meta.managedFields;
    out.metadata = meta;
  }
  if (!isSecret(a, obj)) return out;
  const maskMap = (m: unknown, size: (v: string) => number): unknown => {
    if (typeof m !== 'object' || m === null) return m;
    return Object.fromEntries(Object.entries(m as Obj).map(([k, v]) => [k, masked(typeof v === 'string' ? size(v) : 0)]));
  };
  if ('data' in obj) out.data = maskMap(obj.data, (v) => Buffer.from(v, 'base64').length);
  if ('stringData' in obj) out.stringData = maskMap(obj.stringData, (v) => Buffer.byteLength(v, 'utf8'));
  const ann = meta?.annotations;
  if (meta && typeof ann === 'object' && ann !== null && LAST_APPLIED in (ann as Obj)) {
    const v = (ann as Obj)[LAST_APPLIED];
    meta.annotations = { ...(ann as Obj), [LAST_APPLIED]: masked(typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : 0) };
  }
  return out;
}

function typeName(a: ObjectAddress): string {
  return a.group ? `${a.resource}.${a.group}` : a.resource;
}

export function renderObjectYaml(a: ObjectAddress, obj: Obj, fetchedAt: Date): string {
  const where = a.namespace ? `${a.namespace}/${a.name}` : a.name;
  const header = [
    `# ${typeName(a)} ${where} in context "${a.context}", as the API server returned it at ${fetchedAt.toISOString()}.`,
    '# Read-only. managedFields are omitted.' + (isSecret(a, obj) ? ' Secret values are masked.' : ''),
  ]
    // a name cannot hold a newline, but a context name in a kubeconfig could: keep the header comments one line each
    .map((l) => l.replace(/[\r\n]+/g, ' '))
    .join('\n');
  return `${header}\n${dump(redactObject(a, obj), { lineWidth: -1, noRefs: true, sortKeys: false })}`;
}

export function renderFetchError(a: ObjectAddress, message: string): string {
  const where = a.namespace ? `${a.namespace}/${a.name}` : a.name;
  return `# Could not fetch ${typeName(a)} ${where} from context "${a.context}":\n# ${message.replace(/[\r\n]+/g, ' ')}\n`;
}
