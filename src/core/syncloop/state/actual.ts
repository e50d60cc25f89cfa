import { deepEqual } from '../equal';
import type { ObjectView } from '../../rows/objectView';

/**
 * ActualStateOfWorld: what our model holds — one computed ObjectView per key; the tree view's data.
 *
 * Guarantees:
 * - A listener hears (key, old, new) exactly when a key's view changes (new === undefined: removed;
 *   old === undefined: added); writing an equal view is silent, so a tree refreshes only what changed.
 * - A throwing listener cannot break the loop or the other listeners.
 */
export type ViewChangeListener = (key: string, oldView: ObjectView | undefined, newView: ObjectView | undefined) => void;

export class ActualStateOfWorld {
  private readonly views = new Map<string, ObjectView>();
  private readonly listeners = new Set<ViewChangeListener>();

  /** Stores the view; returns true when it changed. */
  set(view: ObjectView): boolean {
    const old = this.views.get(view.key);
    if (old && deepEqual(old, view)) return false;
    this.views.set(view.key, view);
    this.emit(view.key, old, view);
    return true;
  }

  /** Removes the key (only if it still shows `uid`, when given). True when removed. */
  delete(key: string, uid?: string): boolean {
    const old = this.views.get(key);
    if (!old || (uid !== undefined && old.uid !== uid)) return false;
    this.views.delete(key);
    this.emit(key, old, undefined);
    return true;
  }

  get(key: string): ObjectView | undefined {
    return this.views.get(key);
  }

  keys(): IterableIterator<string> {
    return this.views.keys();
  }

  values(): IterableIterator<ObjectView> {
    return this.views.values();
  }

  get size(): number {
    return this.views.size;
  }

  subscribe(fn: ViewChangeListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(key: string, oldView: ObjectView | undefined, newView: ObjectView | undefined): void {
    for (const l of this.listeners) {
      try {
        l(key, oldView, newView);
      } catch {
        // a listener's failure is its own
      }
    }
  }
}
