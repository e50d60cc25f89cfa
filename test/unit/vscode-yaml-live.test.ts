// Live YAML documents: an open document is fetched again when the model's copy of its object
// changes or goes away, at most once per window, and never for changes that leave it as shown.
// Driven by the real ResourceModel with loader results, on a FakeClock.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import type { StoredObject } from '../../src/core/kube/objects/types';
import { ResourceModel } from '../../src/app/model/resourceModel';
import type { ObjectAddress } from '../../src/app/yaml/address';
import { LiveDocuments, lookupIn } from '../../src/app/yaml/live';
import { pod, result, task } from './vscode-fixtures';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const at = (p: StoredObject, rv: string): StoredObject => ({ ...p, metadata: { ...p.metadata, resourceVersion: rv } });

function setup() {
  const clock = new FakeClock();
  const model = new ResourceModel();
  model.reset('ctx');
  const refreshed: string[] = [];
  const live = new LiveDocuments(lookupIn(model), (id) => refreshed.push(id), clock, 1000);
  const off = model.onChange((c) => live.onChange(c));
  const load = (...items: StoredObject[]) => model.applyResult(result(task(PODS, 'Pod', true), items));
  const addr = (ns: string, name: string): ObjectAddress => ({ context: 'ctx', group: '', version: 'v1', resource: 'pods', namespace: ns, name });
  return { clock, model, live, refreshed, load, addr, off };
}

describe('live YAML documents', () => {
  it('a change to the open object refreshes it; a change to its neighbour does not', async () => {
    const { clock, live, refreshed, load, addr } = setup();
    const web = pod('a', 'web');
    const db = pod('a', 'db');
    load(web, db);
    live.track('doc-web', addr('a', 'web'));
    await clock.advance(5000);
    load(web, at(db, '500'));
    assert.deepEqual(refreshed, [], 'db changed, web did not');
    load(at(web, '501'), at(db, '500'));
    assert.deepEqual(refreshed, ['doc-web'], 'web changed: fetched at once (the window since opening has passed)');
  });

  it('changes inside the window coalesce into one refresh at its end, for the last state', async () => {
    const { clock, live, refreshed, load, addr, model } = setup();
    const web = pod('a', 'web');
    load(web);
    live.track('d', addr('a', 'web'));
    load(at(web, '600')); // 0 ms after opening: inside the window
    load(at(web, '601'));
    load(at(web, '602'));
    assert.deepEqual(refreshed, [], 'nothing before the window ends');
    assert.equal(clock.pendingTimers(), 1, 'one pending refresh, not three');
    await clock.advance(1000);
    assert.deepEqual(refreshed, ['d']);
    assert.equal(model.object('a', 'pods', 'web')!.view.resourceVersion, '602');
    await clock.advance(10_000);
    assert.deepEqual(refreshed, ['d'], 'nothing more: the document was fetched for the last state');
  });

  it('the object going away refreshes the document (which then says so), and so does its return', async () => {
    const { clock, live, refreshed, load, addr } = setup();
    const web = pod('a', 'web');
    const other = pod('a', 'other');
    load(web, other);
    live.track('d', addr('a', 'web'));
    await clock.advance(2000);
    load(other);
    assert.deepEqual(refreshed, ['d'], 'deleted');
    await clock.advance(2000);
    load(other, at(web, '700'));
    assert.deepEqual(refreshed, ['d', 'd'], 'created again');
  });

  it('a window whose changes leave the object as the document shows it fires nothing (level-triggered)', async () => {
    const { clock, live, refreshed, load, addr } = setup();
    const web = pod('a', 'web');
    const other = pod('a', 'other');
    load(web, other);
    live.track('d', addr('a', 'web'));
    load(other); // gone...
    load(web, other); // ...and back as it was, inside the window
    await clock.advance(5000);
    assert.deepEqual(refreshed, []);
    assert.equal(clock.pendingTimers(), 0);
  });

  it('documents of another context are left alone, and a model reset refreshes nothing', async () => {
    const { clock, live, refreshed, load, addr, model } = setup();
    const web = pod('a', 'web');
    load(web);
    live.track('d', addr('a', 'web'));
    await clock.advance(2000);
    model.reset('other');
    load(at(web, '800'));
    await clock.advance(2000);
    assert.deepEqual(refreshed, [], 'the model now holds another cluster');
  });

  it('untrack and dispose cancel pending refreshes: no timer outlives its document', async () => {
    const { clock, live, refreshed, load, addr } = setup();
    const web = pod('a', 'web');
    const db = pod('a', 'db');
    load(web, db);
    live.track('w', addr('a', 'web'));
    live.track('d', addr('a', 'db'));
    load(at(web, '900'), at(db, '901'));
    assert.equal(clock.pendingTimers(), 2);
    live.untrack('w');
    assert.equal(clock.pendingTimers(), 1);
    live.dispose();
    assert.equal(clock.pendingTimers(), 0);
    assert.equal(live.size, 0);
    await clock.advance(5000);
    assert.deepEqual(refreshed, []);
  });

  it('a cluster-scoped object is matched in the cluster-scoped bucket', async () => {
    const { clock, live, refreshed, model } = setup();
    const NODES = { group: '', version: 'v1', resource: 'nodes' };
    const node = (rv: string): StoredObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'n1', resourceVersion: rv } });
    model.applyResult(result(task(NODES, 'Node', false), [node('1')]));
    live.track('n', { context: 'ctx', group: '', version: 'v1', resource: 'nodes', name: 'n1' });
    await clock.advance(2000);
    model.applyResult(result(task(NODES, 'Node', false), [node('2')]));
    assert.deepEqual(refreshed, ['n']);
  });
});
