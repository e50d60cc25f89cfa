/**
 * What a screen reader announces for each tree row (TreeItem.accessibilityInformation), without
 * 'vscode'. VS Code otherwise reads the label and description only, and the status icon (its shape
 * and colour) says nothing aloud; so the label here puts the status into words.
 *
 * Guarantees: every row kind gets a label that starts with what the row is (kind and name), then its
 * state in words: an object's tone ("healthy", "needs attention", "failing", "completed") and its
 * kubectl-style status; a kind's object count; a failed type's reason. The "·" separators of the
 * descriptions are read as commas.
 */
import type { StatusTone } from '../model/objectStatus';
import type { ResourceNode } from './treeNode';
import type { NodeItem } from './treeModel';

const TONE_WORDS: Record<StatusTone, string> = {
  ok: 'healthy',
  warning: 'needs attention',
  error: 'failing',
  done: 'completed',
  none: '',
};

const spoken = (s: string | undefined) => (s ?? '').replace(/\s*·\s*/g, ', ').trim();

/** The row's accessible label. `kind`: the object's kind (e.g. "Pod") for object rows. */
export function accessibleLabel(node: ResourceNode, it: NodeItem, kind?: string): string {
  const d = spoken(it.description);
  switch (node.kind) {
    case 'object': {
      const tone = TONE_WORDS[it.tone ?? 'none'];
      const state = [tone, d].filter(Boolean).join(': ');
      return `${kind ? `${kind} ` : ''}${it.label}${state ? `, ${state}` : ''}`;
    }
    case 'type': {
      // description: "12", "3 of 12" (filtered), "... (partial)"
      const m = /^([\d,]+)(?: of ([\d,]+))?( \(partial\))?$/.exec(d);
      if (!m) return `${it.label}${d ? `, ${d}` : ''}`;
      const total = m[2] ?? m[1]!;
      const count = `${total} object${total === '1' ? '' : 's'}`;
      return `${it.label}, ${m[2] ? `${m[1]} of ${count} shown` : count}${m[3] ? ', list incomplete' : ''}`;
    }
    case 'failure':
      return `Failed to load ${it.label}${d ? `: ${d}` : ''}`;
    case 'errors':
      return `${it.label.replace(/ ?\((\d+)\)$/, (_, n: string) => `: ${n} resource type${n === '1' ? '' : 's'}`)}, error`;
    case 'context':
      return `Context ${it.label}${d ? `, ${d}` : ''}`;
    case 'namespace':
      return `Namespace ${it.label}${d ? `, ${d}` : ''}`;
    case 'group':
      return `API group ${it.label}`;
    default:
      return `${it.label}${d ? `, ${d}` : ''}`;
  }
}
