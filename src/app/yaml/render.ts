/**
 * An object as the read-only YAML document shows it. No 'vscode' import.
 *
 * Secrets are masked by core/kube/redact.ts (shared with the flight recorder): every value of `data` and `stringData` is replaced by `<masked: N bytes>` (N is the
 * decoded size), and so is the `kubectl.kubernetes.io/last-applied-configuration` annotation, which
 * `kubectl apply` fills with the whole Secret including its data. There is deliberately no setting
 * to unmask: the document lives in an editor tab (screen shares, screenshots, "copy all", chat
 * extensions that read open editors) and a setting would persist and sync across machines; a user
 * who needs a value reads that one value with kubectl, where the act is explicit.
 * managedFields are dropped: they are large and serve server-side apply, not a reader.
 */
import { dump } from 'js-yaml';
import type { ObjectAddress } from './address';
import { LAST_APPLIED, isSecret, redactObject } from '../../core/kube/redact';

export { LAST_APPLIED, isSecret, redactObject };

type Obj = Record<string, unknown>;

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
