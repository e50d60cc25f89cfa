/**
 * What the Relations view shows for one object, without 'vscode': its owners above (each owner's
 * own owners under it, up to the roots), the object, what it owns below (down to the leaves), then
 * its Events, newest first. Rows of observed objects can be opened (their type, namespace and
 * name); a virtual owner (named by a reference, not listed) says so and cannot.
 */
import type { EventRow } from '../../core/relations/events';
import type { RelationNode, RelationTree } from '../../core/relations/ownerIndex';

export interface RelationRow {
  /** Unique in the view (the tree's ids). */
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  children?: RelationRow[];
  /** The object to open as YAML (observed objects only). */
  open?: { typeKey: string; namespace?: string; name: string };
  /** A Warning Event. */
  warning?: boolean;
}

export interface RelationsInput {
  owners: RelationTree;
  dependents: RelationTree;
  /** The Events (filtered as asked), or why they could not be read. */
  events: EventRow[] | { error: string };
  warningsOnly: boolean;
  /** Where the relations come from, for the headers: 'live' or a recording's instant. */
  source?: string;
}

const nodeLabel = (n: RelationNode) => `${n.kind} ${n.namespace ? `${n.namespace}/` : ''}${n.name}`;

function nodeRow(t: RelationTree, id: string): RelationRow {
  const n = t.node;
  const notes = [t.controller ? 'controller' : '', n.virtual ? 'not listed (deleted, or not loaded)' : '', t.seen ? 'shown above' : ''].filter(Boolean);
  const row: RelationRow = { id, label: nodeLabel(n), tooltip: `${n.apiVersion ? `${n.apiVersion} ` : ''}${nodeLabel(n)}\nuid ${n.uid}` };
  if (notes.length) row.description = notes.join(', ');
  if (!n.virtual && n.typeKey) row.open = { typeKey: n.typeKey, ...(n.namespace ? { namespace: n.namespace } : {}), name: n.name };
  const kids = t.children.map((c, i) => nodeRow(c, `${id}/${i}`));
  if (t.omitted) kids.push({ id: `${id}/more`, label: `${t.omitted.toLocaleString('en-US')} more not shown` });
  if (kids.length) row.children = kids;
  return row;
}

const time = (ms: number) =>
  ms
    ? new Date(ms)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z')
    : 'no time';

export function relationRows(r: RelationsInput): RelationRow[] {
  const subject = nodeRow({ ...r.owners, controller: false, children: [] }, 'subject');
  const owners = r.owners.children.map((c, i) => nodeRow(c, `owners/${i}`));
  const owned = r.dependents.children.map((c, i) => nodeRow(c, `owned/${i}`));
  if (r.dependents.omitted) owned.push({ id: 'owned/more', label: `${r.dependents.omitted.toLocaleString('en-US')} more not shown` });
  const events: RelationRow[] =
    'error' in r.events
      ? [{ id: 'events/error', label: `Events could not be read: ${r.events.error}` }]
      : r.events.map((e, i) => ({
          id: `events/${i}`,
          label: `${e.reason}${e.count > 1 ? ` (x${e.count})` : ''}`,
          description: `${time(e.lastSeen)} ${e.message}`,
          tooltip: `${e.type} ${e.reason} from ${e.source || 'unknown'}, ${e.count} time(s), last ${time(e.lastSeen)}\n${e.message}`,
          ...(e.type === 'Warning' ? { warning: true } : {}),
        }));
  const count = 'error' in r.events ? '' : ` (${r.events.length})`;
  return [
    { id: 'owners', label: `Owners${owners.length ? '' : ': none'}`, ...(owners.length ? { children: owners } : {}) },
    { ...subject, description: [subject.description, r.source].filter(Boolean).join(', ') || undefined },
    { id: 'owned', label: `Owned${owned.length ? '' : ': none'}`, ...(owned.length ? { children: owned } : {}) },
    { id: 'events', label: `${r.warningsOnly ? 'Warning Events' : 'Events'}${count}`, ...(events.length ? { children: events } : {}) },
  ];
}
