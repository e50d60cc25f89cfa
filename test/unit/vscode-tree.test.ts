// The resource tree's shape, ids, paging, filter and partial refresh, without VS Code.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { computeObjectView } from '../../src/core/rows/objectView';
import { ResourceModel } from '../../src/app/model/resourceModel';
import { RefreshCoalescer, withoutCovered } from '../../src/app/tree/coalesce';
import type { ResourceNode } from '../../src/app/tree/treeNode';
import { TreeModel } from '../../src/app/tree/treeModel';
import { obj, pod, result, task } from './vscode-fixtures';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const DEPLOYS = { group: 'apps', version: 'v1', resource: 'deployments' };
const NODES = { group: '', version: 'v1', resource: 'nodes' };
const SECRETS = { group: '', version: 'v1', resource: 'secrets' };

function cluster(): { m: ResourceModel; t: TreeModel } {
  const m = new ResourceModel();
  m.reset('demo');
  m.applyResult(result(task(PODS, 'Pod', true), [pod('a', 'web-1'), pod('a', 'web-0', 'Pending', false), pod('b', 'db-0', 'Running', true, 7)]));
  m.applyResult(result(task(DEPLOYS, 'Deployment', true), [obj('Deployment', 'web', 'a')]));
  m.applyResult(result(task(NODES, 'Node', false), [obj('Node', 'node-1')]));
  m.applyResult(
    result(task(SECRETS, 'Secret', true), [], 'error', {
      status: 403,
      reason: 'Forbidden',
      message: 'secrets is forbidden: User "x" cannot list resource "secrets"',
    }),
  );
  return { m, t: new TreeModel(m) };
}

/** label [— description] lines of the whole expanded tree. */
function render(t: TreeModel, node?: ResourceNode, depth = 0): string[] {
  const out: string[] = [];
  for (const c of t.children(node)) {
    const it = t.item(c);
    out.push(`${'  '.repeat(depth)}${it.label}${it.description ? ` — ${it.description}` : ''}`);
    out.push(...render(t, c, depth + 1));
  }
  return out;
}

describe('TreeModel', () => {
  it('shows context > failures > namespaces > groups > kinds with counts > objects with status, and Cluster-scoped', () => {
    const { t } = cluster();
    assert.deepEqual(render(t), [
      'demo',
      '  Failed to load (1)',
      '    Secret (secrets) — 403 Forbidden',
      '  a',
      '    core',
      '      Pod — 2',
      '        web-0 — ContainerCreating · Ready 0/1',
      '        web-1 — Running · Ready 1/1',
      '    apps',
      '      Deployment — 1',
      '        web',
      '  b',
      '    core',
      '      Pod — 1',
      '        db-0 — Running · Ready 1/1 · 7 restarts',
      '  Cluster-scoped',
      '    core',
      '      Node — 1',
      '        node-1',
    ]);
  });

  it('has no roots before a load (so VS Code shows the welcome content)', () => {
    assert.deepEqual(new TreeModel(new ResourceModel()).roots(), []);
  });

  it('gives every node a unique id stable across calls, one instance per id, and a parent chain to the root', () => {
    const { t } = cluster();
    const seen = new Map<string, ResourceNode>();
    const walk = (n?: ResourceNode) => {
      for (const c of t.children(n)) {
        assert.ok(!seen.has(c.id), `duplicate id ${c.id}`);
        seen.set(c.id, c);
        assert.equal(t.parent(c), n, `parent of ${c.id}`);
        walk(c);
      }
    };
    walk();
    const again = new Map<string, ResourceNode>();
    const walk2 = (n?: ResourceNode) => t.children(n).forEach((c) => (again.set(c.id, c), walk2(c)));
    walk2();
    for (const [id, n] of again) assert.equal(seen.get(id), n, `same instance for ${id}`);
  });

  it('colours objects by status: Running green, Pending yellow, CrashLoopBackOff red, Completed grey', () => {
    const m = new ResourceModel();
    m.reset('demo');
    const crash = pod('a', 'crash');
    crash.status = { phase: 'Running', containerStatuses: [{ name: 'c', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }] };
    const done = pod('a', 'done', 'Succeeded', false);
    done.status = {
      phase: 'Succeeded',
      containerStatuses: [{ name: 'c', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
    };
    m.applyResult(result(task(PODS, 'Pod', true), [pod('a', 'ok'), pod('a', 'wait', 'Pending', false), crash, done]));
    const t = new TreeModel(m);
    const type = t.children(t.children(t.children(t.roots()[0])[0])[0])[0]!;
    const tones = Object.fromEntries(t.children(type).map((n) => [n.name, t.item(n).tone]));
    assert.deepEqual(tones, { crash: 'error', done: 'done', ok: 'ok', wait: 'warning' });
    assert.equal(t.item(t.children(type).find((n) => n.name === 'crash')!).description, 'CrashLoopBackOff · Ready 0/1 · 4 restarts');
  });

  // Pages, so a kind's first rows never wait on its whole list. How fast is a benchmark's question,
  // not a unit test's: a wall-clock bound here fails on a busy machine and proves nothing on a fast one.
  it('pages a kind of 100,000 objects: 500 rows and "Show more"', () => {
    const m = new ResourceModel();
    m.reset('big');
    const items = Array.from({ length: 100_000 }, (_, i) => obj('ConfigMap', `cm-${String(i).padStart(6, '0')}`, 'big'));
    m.applyResult(result(task({ group: '', version: 'v1', resource: 'configmaps' }, 'ConfigMap', true), items));
    const t = new TreeModel(m);
    const type = t.children(t.children(t.children(t.roots()[0])[0])[0])[0]!;
    let rows = t.children(type);
    assert.equal(rows.length, 501);
    assert.equal(rows[0]!.name, 'cm-000000');
    const more = rows[500]!;
    assert.equal(more.kind, 'more');
    assert.deepEqual([t.item(more).label, t.item(more).description], ['Show 500 more', '500 of 100,000 shown']);
    assert.equal(t.showMore(more), type);
    rows = t.children(type);
    assert.equal(rows.length, 1001);
  });

  it('filters by name, kind or namespace, and says how many of a kind match', () => {
    const { t } = cluster();
    t.setFilter('WEB-1');
    assert.deepEqual(render(t), [
      'demo',
      '  Failed to load (1)',
      '    Secret (secrets) — 403 Forbidden',
      '  a',
      '    core',
      '      Pod — 1 of 2',
      '        web-1 — Running · Ready 1/1',
    ]);
    t.setFilter('deploy');
    assert.deepEqual(
      render(t).filter((l) => !l.includes('Failed') && !l.includes('Secret')),
      ['demo', '  a', '    apps', '      Deployment — 1', '        web'],
    );
    t.setFilter('b');
    assert.ok(render(t).includes('  b'), 'a namespace that matches shows everything in it');
    t.setFilter('');
    assert.equal(render(t).length, 19);
  });

  it('maps a status change to that object row only, and a new object to its kind', () => {
    const { m, t } = cluster();
    render(t); // VS Code has seen every node
    const view = m.object('a', 'pods', 'web-1')!.view;
    let changed: ResourceNode[] | undefined = [];
    const off = m.onChange((c) => (changed = t.changed(c)));
    m.applyView('a/web-1', { ...view, status: 'CrashLoopBackOff' });
    assert.deepEqual(
      changed!.map((n) => n.id),
      ['c%3Ademo/n%3Aa/g%3A/t%3Apods/o%3Aweb-1'],
    );
    m.applyView('a/web-2', computeObjectView('a/web-2', pod('a', 'web-2'), undefined));
    assert.deepEqual(
      changed!.map((n) => n.kind),
      ['type'],
    );
    m.applyView('c/new-0', computeObjectView('c/new-0', pod('c', 'new-0'), undefined));
    assert.deepEqual(
      changed!.map((n) => n.kind),
      ['context'],
      'a new namespace refreshes the context row',
    );
    render(t); // VS Code re-read the context row: namespace c is shown
    m.applyView('c/new-1', computeObjectView('c/new-1', pod('c', 'new-1'), undefined));
    assert.ok(!changed!.some((n) => n.kind === 'context'), 'an object that joins a namespace already shown leaves the context row alone');
    m.applyView('c/new-1', undefined);
    m.applyView('c/new-0', undefined);
    assert.ok(
      changed!.some((n) => n.kind === 'context'),
      'a namespace that lost its last object refreshes the context row',
    );
    off();
  });

  it('names no row for a write that leaves it as drawn (a label, a new resourceVersion), until it is drawn otherwise', () => {
    const { m, t } = cluster();
    render(t); // VS Code has seen every node
    const row = 'c%3Ademo/n%3Aa/g%3A/t%3Apods/o%3Aweb-1';
    const changes: (ResourceNode[] | undefined)[] = [];
    const off = m.onChange((c) => changes.push(t.changed(c)));
    const view = m.object('a', 'pods', 'web-1')!.view;
    m.applyView('a/web-1', { ...view, resourceVersion: '999' });
    assert.equal(changes.length, 1, 'the model saw a new view');
    assert.deepEqual(changes[0], [], 'the row is drawn as before: nothing to refresh');
    m.applyView('a/web-1', { ...view, resourceVersion: '1000', status: 'Error' });
    assert.deepEqual(
      changes[1]!.map((n) => n.id),
      [row],
    );
    // VS Code has not re-read it yet: another write that keeps "Error" is named again, since the row
    // as drawn still shows the old status.
    m.applyView('a/web-1', { ...view, resourceVersion: '1001', status: 'Error' });
    assert.deepEqual(
      changes[2]!.map((n) => n.id),
      [row],
    );
    render(t); // VS Code re-read the row: "Error" is drawn
    m.applyView('a/web-1', { ...view, resourceVersion: '1002', status: 'Error' });
    assert.deepEqual(changes[3], []);
    m.applyView('a/web-1', { ...view, resourceVersion: '1003', status: 'Running', ready: '0/1' });
    assert.deepEqual(
      changes[4]!.map((n) => n.id),
      [row],
      'a column of the description changed',
    );
    off();
  });

  it('names the context row for a new namespace only once VS Code has been given its children', () => {
    const m = new ResourceModel();
    const t = new TreeModel(m);
    let changed: ResourceNode[] | undefined = [];
    m.onChange((c) => (changed = t.changed(c)));
    m.reset('demo');
    const ctx = t.roots()[0]!; // VS Code read the root row, not yet its children
    m.applyResult(result(task(PODS, 'Pod', true), [pod('a', 'web-1')]));
    assert.ok(!changed!.some((n) => n.kind === 'context'), 'its children are read as they are when VS Code asks: no refresh that would restart that read');
    assert.deepEqual(
      t.children(ctx).map((n) => n.namespace),
      ['a'],
    );
    m.applyResult(result(task(PODS, 'Pod', true, 'b'), [pod('b', 'db-0')]));
    assert.ok(
      changed!.some((n) => n.kind === 'context'),
      'a namespace VS Code has not been shown refreshes the context row',
    );
  });

  it('a reset means "refresh everything"', () => {
    const { m, t } = cluster();
    render(t);
    let changed: ResourceNode[] | undefined = [];
    m.onChange((c) => (changed = t.changed(c)));
    m.reset('other');
    assert.equal(changed, undefined);
  });
});

describe('RefreshCoalescer', () => {
  const n = (...path: string[]): ResourceNode => ({ id: path.map(encodeURIComponent).join('/'), kind: 'object', path });

  it('fires once per burst, leaving out nodes whose ancestor is refreshed too', async () => {
    const clock = new FakeClock();
    const fired: (ResourceNode[] | undefined)[] = [];
    const c = new RefreshCoalescer<ResourceNode>((x) => fired.push(x), clock, 100);
    const type = n('c', 'ns', 'g', 't');
    c.add([n('c', 'ns', 'g', 't', 'o1')]);
    c.add([type, n('c', 'ns', 'g', 't', 'o2'), n('c', 'other', 'g', 't', 'o3')]);
    await clock.advance(99);
    assert.equal(fired.length, 0);
    await clock.advance(1);
    assert.deepEqual(
      fired.map((f) => f?.map((x) => x.id)),
      [['c/ns/g/t', 'c/other/g/t/o3']],
    );
    assert.equal(clock.pendingTimers(), 0);
  });

  it('turns a whole-tree request into one undefined refresh; nothing fires after dispose', async () => {
    const clock = new FakeClock();
    const fired: (ResourceNode[] | undefined)[] = [];
    const c = new RefreshCoalescer<ResourceNode>((x) => fired.push(x), clock, 100);
    c.add([n('a')]);
    c.add(undefined);
    await clock.advance(100);
    assert.deepEqual(fired, [undefined]);
    c.add([n('a')]);
    c.dispose();
    await clock.advance(1000);
    assert.equal(fired.length, 1);
    assert.equal(clock.pendingTimers(), 0);
  });

  it('withoutCovered keeps unrelated siblings', () => {
    assert.deepEqual(
      withoutCovered([n('a', 'b'), n('a', 'c'), n('a', 'b', 'x')]).map((x) => x.id),
      ['a/b', 'a/c'],
    );
  });
});
