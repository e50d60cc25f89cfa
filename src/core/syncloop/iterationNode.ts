import type { SyncLoop } from './syncloop';
import type { Pod } from '../kube/objects/pod';

/**
 * Which node an iteration belongs to, for the timeline: the loop's node when it is scoped to one
 * (every pod it sees is bound there), otherwise the spec.nodeName shared by the desired pods the
 * iteration names. Undefined for ticks that touched nothing, for objects that are not pods or not
 * yet scheduled, and when the named pods sit on different nodes.
 * Reads at most the keys the iteration's key lists (joinKeys caps those at 20).
 */
export function iterationNode(kl: SyncLoop, key: string): string | undefined {
  if (kl.opts.node) return kl.opts.node;
  if (!key) return undefined;
  let node: string | undefined;
  for (const k of key.split(',')) {
    const n = (kl.desired.get(k)?.obj as Pod | undefined)?.spec?.nodeName;
    if (!n) continue;
    if (node !== undefined && n !== node) return undefined;
    node = n;
  }
  return node;
}
