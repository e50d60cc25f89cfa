/**
 * One window's owner index, fed from the two places objects arrive (no 'vscode' import): the
 * loader's pages, read before the tree's transform makes each object a slim view (so the index
 * sees ownerReferences the tree does not keep), and the sync loop's observer (lists and watch
 * events of every watched type). The tree's model is left as it is: this sits beside it.
 *
 * Guarantees:
 * - Every transfer form the tree's load uses (full, metadata, Table with its object's metadata)
 *   carries ownerReferences, so a loaded object is indexed whichever form it came in.
 * - A watch's ADDED/MODIFIED re-reads the object's ownerReferences; DELETED removes it; a relist
 *   replaces its type in its scope (the reflector's Replace).
 * - A reset of the model (another context or namespace scope) forgets every object of the one before.
 */
import type { LoadTask } from '../../core/loader/types';
import type { KubeObject } from '../../core/kube/objects/types';
import { asStoredObject } from '../../core/kube/objects/types';
import { OwnerIndex } from '../../core/relations/ownerIndex';
import type { ObservedType, SyncObserver } from '../../core/syncloop/observer';
import { typeKeyOf } from '../model/keys';
import type { ResourceModel } from '../model/resourceModel';

/** What the index reads of the tree's model: the kinds of its types (list items carry none) and its resets. */
export type ModelSide = Pick<ResourceModel, 'type' | 'onChange'>;

export class Relations {
  readonly index = new OwnerIndex();

  /** Follows `model`: a reset of it (another context or scope) empties the index too. */
  constructor(private readonly model: ModelSide) {
    model.onChange((c) => {
      if (c.kind === 'reset') this.index.clear();
    });
  }

  /**
   * Wraps the loader's transform: the index reads each listed object first, then `inner` slims it.
   * Nothing is indexed once `signal` has aborted: a load superseded by a switch of context (the
   * Session aborts its lease before it empties the model) cannot put the old cluster's objects in.
   */
  loaderTransform(
    inner: (obj: KubeObject, task: LoadTask) => KubeObject | undefined,
    signal: AbortSignal,
  ): (obj: KubeObject, task: LoadTask) => KubeObject | undefined {
    // the task's type key, made once per task rather than per object (a load runs 100k through here)
    let last: LoadTask | undefined;
    let key = '';
    return (obj, task) => {
      const o = asStoredObject(obj);
      if (o && !signal.aborted && !isEventType(task.gvr)) {
        if (task !== last) [last, key] = [task, typeKeyOf(task.gvr)];
        this.index.upsert(o, key, task.kind);
      }
      return inner(obj, task);
    };
  }

  /**
   * After a loader task: objects of its type and scope the list did not return are gone. Its items
   * were indexed as they arrived, so only their uids are given here. A failed or cancelled task, or
   * one listed by a label selector, proves nothing about absence and changes nothing.
   */
  taskDone(task: LoadTask, outcome: 'ok' | 'error' | 'cancelled', uids: readonly string[]): void {
    if (outcome !== 'ok' || task.labelSelector) return;
    if (isEventType(task.gvr)) return;
    this.index.retainListed(typeKeyOf(task.gvr), task.namespaced ? task.namespace : undefined, uids);
  }

  /** The sync loop's observer: every list and watch event of the watched types. */
  readonly observer: SyncObserver = {
    replace: (source, type, items) => {
      if (isEventType(type)) return;
      const key = typeKeyOf(type);
      this.index.replace(key, this.kind(key, type), namespaceOfSource(source), items);
    },
    apply: (_source, type, event, obj) => {
      if (isEventType(type)) return;
      const key = typeKeyOf(type);
      if (event === 'DELETED') this.index.remove(obj.metadata.uid);
      else this.index.upsert(obj, key, this.kind(key, type));
    },
  };

  private kind(key: string, type: ObservedType): string {
    return this.model.type(key)?.kind ?? type.resource;
  }
}

/**
 * Events own nothing and are owned by nothing; they are many (a busy cluster's largest type), so
 * the index leaves them out. (The loop's pod-Events source is also filtered to Pods: its relist
 * would say nothing of the other Events.)
 */
function isEventType(t: { group: string; resource: string }): boolean {
  return t.resource === 'events' && (t.group === '' || t.group === 'events.k8s.io');
}

/** A reflector's source name is `TYPE` or `TYPE/NAMESPACE` (syncloop/sources/cluster.ts). */
function namespaceOfSource(source: string): string | undefined {
  const i = source.indexOf('/');
  return i < 0 ? undefined : source.slice(i + 1);
}
