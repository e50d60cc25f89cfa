/**
 * `kubeloop load` says which type it leaves out as an alias: core v1 events is loaded,
 * events.events.k8s.io (the same objects in kube-apiserver) only when --include names it.
 * In-process through runLoad against the demo cluster.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runLoad } from '../../src/cli/load';
import { demo, type Fixture } from './loader-helpers';
import { capture } from '../support/capture';

describe('kubeloop load: Events loaded once', () => {
  let fx: Fixture;
  before(async () => {
    fx = await demo(600);
  });
  after(async () => {
    await fx.stop();
  });

  it('by default: core events only, with a note and a "skipped" entry in --json', async () => {
    const c = capture();
    const code = await runLoad(
      ['--kubeconfig', fx.kubeconfig, '--include', 'events,events.events.k8s.io,configmaps', '--exclude', 'configmaps', '--json'],
      c.io,
    );
    assert.equal(code, 0, c.err);
    const both = JSON.parse(c.out);
    assert.deepEqual(both.skipped, [], 'named by a qualified name: both are loaded');
    assert.deepEqual(both.types.map((t: { resource: string; group: string }) => `${t.resource}.${t.group}`).sort(), ['events.', 'events.events.k8s.io']);

    const d = capture();
    assert.equal(await runLoad(['--kubeconfig', fx.kubeconfig, '--json'], d.io), 0, d.err);
    const j = JSON.parse(d.out);
    assert.deepEqual(
      j.skipped.map((s: { group: string; resource: string }) => `${s.resource}.${s.group}`),
      ['events.events.k8s.io'],
    );
    assert.ok(j.types.some((t: { group: string; resource: string }) => t.group === '' && t.resource === 'events'));
    assert.ok(!j.types.some((t: { group: string }) => t.group === 'events.k8s.io'));
    assert.match(d.err, /note: not loading events\.events\.k8s\.io: the same objects as events; add --include events\.events\.k8s\.io to load it too/);
  });
});
