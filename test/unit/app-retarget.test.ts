// Retargeting: ResourceModel.retarget is the one writer of which cluster the tree shows.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceModel } from '../../src/app/model/resourceModel';
import { TreeModel } from '../../src/app/tree/treeModel';
import { pod, result, task } from './vscode-fixtures';

const PODS = { group: '', version: 'v1', resource: 'pods' };

function loaded(context: string, namespaces: string[] = []): ResourceModel {
  const m = new ResourceModel();
  m.retarget({ context, server: 'https://a.example:6443', namespaces });
  m.applyResult(result(task(PODS, 'Pod', true), [pod('default', 'web-0'), pod('team', 'api-0')]));
  return m;
}

describe('ResourceModel.retarget', () => {
  it('keeps the objects for the same context and scope, and shows the server on the context row', () => {
    const m = loaded('a');
    assert.equal(m.retarget({ context: 'a', namespaces: [] }), false);
    assert.equal(m.objectCount, 2);
    const root = new TreeModel(m).roots()[0]!;
    assert.equal(new TreeModel(m).item(root).description, 'https://a.example:6443');
  });

  it('empties the model for another context, and for another namespace scope', () => {
    const other = loaded('a');
    assert.equal(other.retarget({ context: 'b', server: 'https://b.example' }), true);
    assert.deepEqual([other.context, other.objectCount, other.server], ['b', 0, 'https://b.example']);
    const scoped = loaded('a');
    assert.equal(scoped.retarget({ context: 'a', namespaces: ['team'] }), true);
    assert.deepEqual([scoped.objectCount, scoped.namespaceScope, scoped.server], [0, ['team'], 'https://a.example:6443']);
  });

  it('without a context shows nothing: no objects, no server line', () => {
    const m = loaded('a');
    m.retarget({ context: undefined });
    assert.deepEqual([m.context, m.objectCount, m.server], [undefined, 0, '']);
  });
});

describe('ResourceModel.rescope', () => {
  it('empties the model for another namespace scope and keeps the context; the same scope keeps the objects', () => {
    const m = loaded('a');
    assert.equal(m.rescope([]), false);
    assert.equal(m.objectCount, 2);
    assert.equal(m.rescope(['team']), true);
    assert.deepEqual([m.context, m.objectCount, m.namespaceScope], ['a', 0, ['team']]);
  });

  it('a listed context names its context from the start', () => {
    const m = new ResourceModel('listed');
    assert.equal(m.context, 'listed');
    assert.equal(m.retarget({ context: 'listed' }), false);
  });
});
