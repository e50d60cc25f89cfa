/**
 * Node capacity and a cluster autoscaler, for the demo's "FailedScheduling while a node is added"
 * (KubeletOptions.capacity; off by default: the scheduler then binds every pod, as it always did).
 *
 * Guarantees: a node holds at most `podsPerNode` pods the scheduler bound to it (pods deleted since
 * are given back; finished pods still count, a simplification); when a pod finds every node full, one
 * node more is added `addNodeAfterMs` simulated ms later (one scale-up at a time), and every pod still
 * waiting is tried again, as the scheduler's queue moves unschedulable pods back on a node add.
 */
export interface Capacity {
  podsPerNode: number;
  /** Add a node this long after a pod first found no room (default: never, the pods stay Pending). */
  addNodeAfterMs?: number;
}

export class NodeCapacity {
  private readonly bound = new Map<string, string>();
  private readonly perNode = new Map<string, number>();

  constructor(readonly limit: number) {}

  hasRoom(node: string): boolean {
    return (this.perNode.get(node) ?? 0) < this.limit;
  }

  bind(uid: string, node: string): void {
    if (this.bound.has(uid)) return;
    this.bound.set(uid, node);
    this.perNode.set(node, (this.perNode.get(node) ?? 0) + 1);
  }

  release(uid: string): void {
    const node = this.bound.get(uid);
    if (node === undefined) return;
    this.bound.delete(uid);
    this.perNode.set(node, (this.perNode.get(node) ?? 1) - 1);
  }
}
