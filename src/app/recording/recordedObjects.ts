/**
 * The cluster as a recording holds it at one instant, without VS Code: the Recording tree's rows
 * (types, then their objects), the read-only YAML of an object then, an object's history as a list
 * of changes, and the addresses of those virtual documents (scheme `kubeloop-recording`).
 *
 *   kubeloop-recording:/<recording id>/at/<t>/<type>/<namespace or _>/<name>.yaml       the object at t
 *   kubeloop-recording:/<recording id>/before/<i>/<type>/<namespace or _>/<name>.yaml   before change i
 *   kubeloop-recording:/<recording id>/after/<i>/<type>/<namespace or _>/<name>.yaml    after change i
 *
 * Guarantees:
 * - Secret values are masked in every document by the YAML view's own function (core/kube/objects/redact.ts),
 *   although a recording holds them masked already: a document never shows more than the live view.
 * - Every document says in its first lines that it is a recording, read-only, and of which instant.
 * - A name is escaped in the path like the live YAML address (address.ts), so any name round-trips.
 */
import { mergePatch } from '../../core/recorder/diff';
import type { ObjectChange } from '../../core/recorder/reader';
import { objectKey, parseKey, type Obj } from '../../core/recorder/records';
import { isSecret } from '../../core/kube/objects/redact';
import { escapePathSegment, pathSegments } from '../yaml/address';
import { CUT_NOTE, objectYaml } from '../yaml/render';
import { clockTime } from './liveRecording';

export const RECORDING_SCHEME = 'kubeloop-recording';

/** One type of the Recording tree and its objects' keys (in no order: sortedKeys sorts them when shown). */
export interface RecordedType {
  type: string;
  keys: string[];
}

/**
 * The tree's first level: every type present at the instant, pods first (what the sync loop is
 * about), Events last (many, and about the rest). Cost: one pass over the keys, no parse and no
 * sort of them (100,000 keys: a few ms; sorting them all here held the host's thread 200-300 ms).
 */
export function recordedTypes(objects: Iterable<string>): RecordedType[] {
  const by = new Map<string, string[]>();
  for (const key of objects) {
    const a = key.indexOf('/');
    const b = a > 0 ? key.indexOf('/', a + 1) : -1;
    if (b < 0 || b === key.length - 1) continue; // not an object key
    const type = key.slice(0, a);
    let keys = by.get(type);
    if (!keys) by.set(type, (keys = []));
    keys.push(key);
  }
  const rank = (t: string) => (t === 'pods' ? -1 : t === 'events' ? 1 : 0);
  return [...by.entries()].sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0)).map(([type, keys]) => ({ type, keys }));
}

/** A type's keys in namespace/name order (code-unit order, in place: the comparator-free sort is the fast one). */
export function sortedKeys(t: RecordedType & { sorted?: boolean }): string[] {
  if (!t.sorted) {
    t.keys.sort();
    t.sorted = true;
  }
  return t.keys;
}

/** Rows of objects shown at once under a type; the rest behind a "more" row, as the live tree pages. */
export const RECORDED_PAGE = 500;

/** One page of a type's objects from `from`, and where the next page starts (undefined: none left). */
export function recordedPage(keys: readonly string[], from: number, page = RECORDED_PAGE): { keys: string[]; next: number | undefined } {
  const end = Math.min(keys.length, from + page);
  return { keys: keys.slice(from, end), next: end < keys.length ? end : undefined };
}

/** An object row's label: `namespace/name`, or `name` for a cluster-scoped object. */
export function objectLabel(key: string): string {
  const p = parseKey(key);
  if (!p) return key;
  return p.namespace ? `${p.namespace}/${p.name}` : p.name;
}

/** Wall clock with milliseconds, for telling apart changes in one second. */
export function preciseTime(t: number): string {
  return `${clockTime(t)}.${String(((t % 1000) + 1000) % 1000).padStart(3, '0')}`;
}

// ---- documents ---------------------------------------------------------------------------------

export type RecordingDoc = { recording: number; key: string } & ({ kind: 'at'; t: number } | { kind: 'before' | 'after'; change: number });

export function recordingDocPath(d: RecordingDoc): string {
  const p = parseKey(d.key);
  if (!p) throw new Error(`not an object key: ${d.key}`);
  const n = d.kind === 'at' ? d.t : d.change;
  return `/${[String(d.recording), d.kind, String(n), p.type, p.namespace ?? '_', `${p.name}.yaml`].map(escapePathSegment).join('/')}`;
}

/** The document a path names, or undefined when it is not one of ours. */
export function parseRecordingDocPath(path: string): RecordingDoc | undefined {
  const seg = pathSegments(path, 6);
  if (!seg) return undefined;
  const [rec, kind, n, type, ns, file] = seg as [string, string, string, string, string, string];
  const recording = Number(rec);
  const num = Number(n);
  if (!Number.isSafeInteger(recording) || !Number.isSafeInteger(num) || !file.endsWith('.yaml') || file.length <= 5 || !type) return undefined;
  const dot = type.indexOf('.');
  const key = objectKey(
    { resource: dot < 0 ? type : type.slice(0, dot), group: dot < 0 ? '' : type.slice(dot + 1) },
    ns === '_' ? undefined : ns,
    file.slice(0, -5),
  );
  if (kind === 'at') return { recording, key, kind, t: num };
  if (kind === 'before' || kind === 'after') return { recording, key, kind, change: num };
  return undefined;
}

/**
 * An object's read-only YAML as recorded: a header naming the recording, the instant and what the
 * document is, then the object (masked), or a line saying it did not exist.
 */
export function renderRecordedYaml(file: string, key: string, obj: Obj | undefined, t: number, what = 'as recorded'): string {
  const p = parseKey(key);
  const type = p ? { group: p.group, resource: p.resource } : { group: '', resource: '' };
  const header = [
    `# ${p?.type ?? ''} ${objectLabel(key)} ${what} at ${new Date(t).toISOString()} (${clockTime(t)}), from the recording ${file}.`,
    `# A recording: read-only, not the cluster now.${obj && isSecret(type, obj) ? ' Secret values are masked.' : ''}`,
  ]
    .map((l) => l.replace(/[\r\n]+/g, ' '))
    .join('\n');
  if (!obj) return `${header}\n# The object did not exist then.\n`;
  const { yaml, cut } = objectYaml(type, obj);
  return `${header}\n${cut ? `${CUT_NOTE}\n` : ''}${yaml}`;
}

// ---- history -----------------------------------------------------------------------------------

export interface HistoryItem {
  /** Index into the history (the diff documents' `change`). */
  change: number;
  label: string;
  description: string;
}

const OPS = { A: 'added', M: 'modified', D: 'deleted' } as const;

/** The fields a change touched, as dotted paths of the merge patch's leaves (`status.phase`, `metadata.labels.app`). */
export function changedFields(before: Obj | undefined, after: Obj | undefined): string[] {
  if (!before || !after) return [];
  const out: string[] = [];
  const walk = (p: unknown, path: string) => {
    if (p && typeof p === 'object' && !Array.isArray(p) && Object.keys(p).length) {
      for (const [k, v] of Object.entries(p)) walk(v, path ? `${path}.${k}` : k);
    } else out.push(path);
  };
  walk(mergePatch(before, after), '');
  return out.filter(Boolean);
}

/** Every change of one object, newest first (what a user looks for), labelled for a quick pick. */
export function historyItems(changes: readonly ObjectChange[]): HistoryItem[] {
  return changes
    .map((c, change) => {
      const fields = changedFields(c.before, c.after);
      const shown = fields.slice(0, 4).join(', ') + (fields.length > 4 ? `, +${fields.length - 4} more` : '');
      return { change, label: `${preciseTime(c.t)} ${OPS[c.op]}`, description: c.op === 'M' ? shown || 'no field changed' : '' };
    })
    .reverse();
}

/** The diff editor's title for one change. */
export function historyDiffTitle(key: string, c: ObjectChange): string {
  return `${objectLabel(key)}: ${OPS[c.op]} at ${preciseTime(c.t)} (recording)`;
}
