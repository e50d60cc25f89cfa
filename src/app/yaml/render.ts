/**
 * An object as the read-only YAML document shows it. No 'vscode' import.
 *
 * Secrets are masked by core/kube/objects/redact.ts (shared with the flight recorder): every value of `data` and `stringData` is replaced by `<masked: N bytes>` (N is the
 * decoded size), and so is the `kubectl.kubernetes.io/last-applied-configuration` annotation, which
 * `kubectl apply` fills with the whole Secret including its data. There is deliberately no setting
 * to unmask: the document lives in an editor tab (screen shares, screenshots, "copy all", chat
 * extensions that read open editors) and a setting would persist and sync across machines; a user
 * who needs a value reads that one value with kubectl, where the act is explicit.
 * managedFields are dropped: they are large and serve server-side apply, not a reader.
 *
 * Deep objects: one nested deeper than MAX_OBJECT_DEPTH levels (a tenant's custom resource may nest
 * 10,000) is shown cut there (core/kube/objects/depth.ts), with a header line saying so; collections below
 * BLOCK_LEVELS are written in flow style. So any object renders, in time and text linear in its size.
 */
import { dump } from 'js-yaml';
import type { ObjectAddress } from './address';
import { cappedView, MAX_OBJECT_DEPTH, TRUNCATED } from '../../core/kube/objects/depth';
import { LAST_APPLIED, isSecret, redactObject } from '../../core/kube/objects/redact';

export { LAST_APPLIED, isSecret, redactObject };

type Obj = Record<string, unknown>;

function typeName(a: ObjectAddress): string {
  return a.group ? `${a.resource}.${a.group}` : a.resource;
}

/**
 * Levels written in YAML's block style; deeper collections in flow style, on one line. Block style
 * indents every level, so its text and time grow with the square of the depth (an object 1,000
 * levels deep: 1 MB and 0.9 s of the extension host's thread); no real object nests 64 levels.
 */
const BLOCK_LEVELS = 64;

/** An object's YAML (masked, cut at MAX_OBJECT_DEPTH), and whether it was cut. Never changes `obj`. */
export function objectYaml(a: { group: string; resource: string }, obj: Obj): { yaml: string; cut: boolean } {
  const masked = redactObject(a, obj);
  const shown = cappedView(masked);
  return { yaml: dump(shown, { lineWidth: -1, noRefs: true, sortKeys: false, flowLevel: BLOCK_LEVELS }), cut: shown !== masked };
}

/** The header line of an object shown cut. */
export const CUT_NOTE = `# Nested deeper than ${MAX_OBJECT_DEPTH} levels: shown cut there, each deeper part as "${TRUNCATED}".`;

export function renderObjectYaml(a: ObjectAddress, obj: Obj, fetchedAt: Date): string {
  const where = a.namespace ? `${a.namespace}/${a.name}` : a.name;
  const { yaml, cut } = objectYaml(a, obj);
  const header = [
    `# ${typeName(a)} ${where} in context "${a.context}", as the API server returned it at ${fetchedAt.toISOString()}.`,
    '# Read-only. managedFields are omitted.' + (isSecret(a, obj) ? ' Secret values are masked.' : ''),
    ...(cut ? [CUT_NOTE] : []),
  ]
    // a name cannot hold a newline, but a context name in a kubeconfig could: keep the header comments one line each
    .map((l) => l.replace(/[\r\n]+/g, ' '))
    .join('\n');
  return `${header}\n${yaml}`;
}

export function renderFetchError(a: ObjectAddress, message: string): string {
  const where = a.namespace ? `${a.namespace}/${a.name}` : a.name;
  return `# Could not fetch ${typeName(a)} ${where} from context "${a.context}":\n# ${message.replace(/[\r\n]+/g, ' ')}\n`;
}
