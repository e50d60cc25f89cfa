/**
 * The Top Writers view's rows, made from a writers snapshot (core/writers): field managers by
 * writes/s, each expandable to its fights and hot loops (flagged), then its busiest kinds,
 * namespaces and objects. Pure; no 'vscode' import (src/vscode/writers/writersView.ts shows them).
 *
 * Row ids are stable across refreshes (a manager's row keeps its id while its rate changes), so the
 * tree keeps what the user expanded.
 */
import type { Rate, WritersSnapshot } from '../../core/writers/stats';

export interface WriterRow {
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  /** A fight or a hot loop (the row, or a manager row with one below it). */
  warning?: boolean;
  children?: WriterRow[];
}

/** Why there is no snapshot to show. */
export type WritersIdle = 'no-sync' | 'starting';

const rate = (n: number) => `${n.toFixed(1)}/s`;

function group(id: string, label: string, rates: Rate[] | undefined, empty: string): WriterRow | undefined {
  if (!rates?.length) return undefined;
  return {
    id,
    label,
    description: `${rates.length}`,
    children: rates.map((r) => ({ id: `${id}/${r.key}`, label: r.key || empty, description: rate(r.perSecond) })),
  };
}

export function writerRows(snap: WritersSnapshot | WritersIdle): WriterRow[] {
  if (snap === 'no-sync')
    return [{ id: 'idle', label: 'Start the sync loop to see who writes', tooltip: 'The Top Writers view reads the writes the sync loop sees while it runs.' }];
  if (snap === 'starting') return [{ id: 'idle', label: 'Watching for writes...' }];
  if (!snap.managers.length) return [{ id: 'idle', label: 'No writes in the last seconds' }];
  return snap.managers.map((m) => {
    const id = `m/${m.key}`;
    const fights = snap.fights.filter((f) => f.managers.includes(m.key));
    const hot = snap.hotLoops.filter((h) => h.manager === m.key);
    const flagged: WriterRow[] = [
      ...fights.map((f, i) => {
        const other = f.managers[0] === m.key ? f.managers[1] : f.managers[0];
        return {
          id: `${id}/fight/${i}/${f.key}/${f.path}`,
          label: `Fight over ${f.path}`,
          description: `${f.key} with ${other}`,
          tooltip: `${m.key} and ${other} take ${f.path} of ${f.key} from each other: ${f.transfers} transfers in the last minute`,
          warning: true,
        };
      }),
      ...hot.map((h) => ({
        id: `${id}/hot/${h.key}`,
        label: `Hot loop at ${rate(h.perSecond)}`,
        description: h.key,
        tooltip: `${m.key} writes ${h.key} ${rate(h.perSecond)}, held for more than a few seconds`,
        warning: true,
      })),
    ];
    const children = [
      ...flagged,
      group(`${id}/kinds`, 'Kinds', m.kinds, '(unknown)'),
      group(`${id}/namespaces`, 'Namespaces', m.namespaces, '(cluster)'),
      group(`${id}/objects`, 'Objects', m.objects, '(unknown)'),
    ].filter((r): r is WriterRow => r !== undefined);
    const extra = [
      m.noopPerSecond >= 0.05 ? `${m.noopPerSecond.toFixed(1)} no-op` : '',
      m.unseenPerSecond >= 0.05 ? `${m.unseenPerSecond.toFixed(1)} unseen` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const flags = [fights.length ? 'FIGHT' : '', hot.length ? 'HOT LOOP' : ''].filter(Boolean).join(' · ');
    return {
      id,
      label: m.key,
      // the flags first: a narrow side bar cuts the end of a description
      description: `${flags ? `${flags} · ` : ''}${rate(m.perSecond)}${extra ? ` (${extra})` : ''}`,
      tooltip: `${m.key}: ${rate(m.perSecond)} writes${extra ? `, of those ${extra} a second (no-op: nothing but resourceVersion and managedFields changed; unseen: nothing a tree row shows changed)` : ''}`,
      ...(flagged.length ? { warning: true } : {}),
      ...(children.length ? { children } : {}),
    };
  });
}
