// The clicked row, read from the tree view's selection (FakeClock). The view below keeps VS Code's
// handle map as its extension host does: a parent's refresh forgets its children's handles, a read
// of the parent's children learns them again; the selection is a list of handles resolved on read.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { settledSelection, type SelectionSource } from '../../src/app/tree/selection';

class HandleMap implements SelectionSource<string> {
  private readonly known = new Set<string>();
  private readonly reads = new Set<() => void>();
  selected: string[] = [];
  private unread = false;

  constructor(private readonly children: Record<string, string[]>) {
    for (const kids of Object.values(children)) kids.forEach((k) => this.known.add(k));
  }

  /** The extension refreshes `parent`: VS Code drops its children's handles until it reads them again. */
  refresh(parent: string): void {
    for (const k of this.children[parent] ?? []) this.known.delete(k);
    this.unread = true;
  }

  /** VS Code reads `parent`'s children back. */
  readChildren(parent: string): void {
    this.unread = false;
    for (const k of this.children[parent] ?? []) this.known.add(k);
    for (const cb of [...this.reads]) cb();
  }

  selection(): readonly string[] {
    return this.selected.filter((h) => this.known.has(h));
  }
  rereadPending(): boolean {
    return this.unread;
  }
  onChildrenRead(cb: () => void): () => void {
    this.reads.add(cb);
    return () => void this.reads.delete(cb);
  }
  get listeners(): number {
    return this.reads.size;
  }
}

const tree = () => new HandleMap({ ConfigMap: ['html-annotated', 'kube-root-ca.crt'], Pod: ['web-0'] });

describe('settledSelection', () => {
  it('answers a resolvable selection at once', async () => {
    const v = tree();
    v.selected = ['html-annotated'];
    assert.equal(await settledSelection(v, new FakeClock(), 3000), 'html-annotated');
  });

  it('answers an empty selection at once when no refresh is unread (run from the palette, nothing clicked)', async () => {
    const clock = new FakeClock();
    assert.equal(await settledSelection(tree(), clock, 3000), undefined);
    assert.equal(clock.pendingTimers(), 0);
  });

  it('a click on a row whose parent was just refreshed gets the row once VS Code has read the children back', async () => {
    const v = tree();
    const clock = new FakeClock();
    v.refresh('ConfigMap');
    v.selected = ['html-annotated']; // the click lands on the row VS Code still draws
    let got: string | undefined | null = null;
    const p = settledSelection(v, clock, 3000).then((n) => (got = n));
    await clock.advance(10);
    v.readChildren('Pod'); // another parent's children: not yet
    await clock.advance(10);
    assert.equal(got, null, 'still waiting: the clicked row is not known again');
    v.readChildren('ConfigMap');
    await p;
    assert.equal(got, 'html-annotated');
    assert.equal(v.listeners, 0);
    assert.equal(clock.pendingTimers(), 0);
  });

  it('gives up after settleMs when VS Code never reads the children back, leaving no listener or timer', async () => {
    const v = tree();
    const clock = new FakeClock();
    v.refresh('ConfigMap');
    v.selected = ['html-annotated'];
    let got: string | undefined | null = null;
    const p = settledSelection(v, clock, 3000).then((n) => (got = n));
    await clock.advance(2999);
    assert.equal(got, null);
    await clock.advance(1);
    await p;
    assert.equal(got, undefined);
    assert.equal(v.listeners, 0);
    assert.equal(clock.pendingTimers(), 0);
  });

  it('rejects with the reason when aborted, leaving no listener or timer', async () => {
    const v = tree();
    const clock = new FakeClock();
    v.refresh('ConfigMap');
    v.selected = ['html-annotated'];
    const ac = new AbortController();
    const p = settledSelection(v, clock, 3000, ac.signal);
    ac.abort(new Error('window closed'));
    await assert.rejects(p, /window closed/);
    assert.equal(v.listeners, 0);
    assert.equal(clock.pendingTimers(), 0);
  });
});
