// What a screen reader announces for each tree row: the status in words, read from the same
// TreeModel rows the tree shows (a real ResourceModel filled by loader results).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceModel } from '../../../src/app/model/resourceModel';
import { accessibleLabel } from '../../../src/app/tree/accessibility';
import type { ResourceNode } from '../../../src/app/tree/treeNode';
import { TreeModel } from '../../../src/app/tree/treeModel';
import { obj, pod, result, task } from '../vscode-fixtures';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const SECRETS = { group: '', version: 'v1', resource: 'secrets' };

/** Every row of the expanded tree as the accessible label the provider hands VS Code. */
function labels(m: ResourceModel, t: TreeModel, node?: ResourceNode): string[] {
  const out: string[] = [];
  for (const c of t.children(node)) {
    const kind = c.kind === 'object' ? m.type(c.typeKey!)?.kind : undefined;
    out.push(accessibleLabel(c, t.item(c), kind));
    out.push(...labels(m, t, c));
  }
  return out;
}

describe('tree rows: accessible labels', () => {
  it("say each row's kind, name and status in words: objects by tone and kubectl status, kinds by count, failures by reason", () => {
    const m = new ResourceModel();
    m.reset('demo');
    m.applyResult(result(task(PODS, 'Pod', true), [pod('a', 'web-1'), pod('a', 'web-0', 'Pending', false), pod('a', 'db-0', 'Running', true, 7)]));
    m.applyResult(result(task({ group: 'apps', version: 'v1', resource: 'deployments' }, 'Deployment', true), [obj('Deployment', 'web', 'a')]));
    m.applyResult(result(task(SECRETS, 'Secret', true), [], 'error', { status: 403, reason: 'Forbidden', message: 'secrets is forbidden' }));
    const t = new TreeModel(m);
    assert.deepEqual(labels(m, t), [
      'Context demo',
      'Failed to load: 1 resource type, error',
      'Failed to load Secret (secrets): 403 Forbidden',
      'Namespace a',
      'API group core',
      'Pod, 3 objects',
      'Pod db-0, healthy: Running, Ready 1/1, 7 restarts',
      'Pod web-0, needs attention: ContainerCreating, Ready 0/1',
      'Pod web-1, healthy: Running, Ready 1/1',
      'API group apps',
      'Deployment, 1 object',
      'Deployment web',
    ]);
  });

  it('a filtered kind says how many of its objects are shown', () => {
    const m = new ResourceModel();
    m.reset('demo');
    m.applyResult(result(task(PODS, 'Pod', true), [pod('a', 'web-1'), pod('a', 'db-0')]));
    const t = new TreeModel(m);
    t.setFilter('web');
    const kind = labels(m, t).find((l) => l.startsWith('Pod,'));
    assert.equal(kind, 'Pod, 1 of 2 objects shown');
  });
});
