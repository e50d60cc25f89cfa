/**
 * A tenant's custom resource nested 4,000 levels deep (kube-apiserver stores up to 10,000), on the
 * demo cluster over a real socket, against `kubeloop sync --record` and `kubeloop load` run in
 * process: every edit of it and of its neighbour reaches the loop and the recording (no reflector
 * failure, no relist, the recording never stops), the deep one cut at 1,000 levels, and one warning
 * names it however many times it changes; the load counts it from its metadata alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runLoad } from '../../src/cli/load';
import { runSync } from '../../src/cli/sync';
import { MAX_OBJECT_DEPTH, TRUNCATED } from '../../src/core/kube/objects/depth';
import { Recording } from '../../src/core/recorder/reader';
import type { Obj } from '../../src/core/recorder/records';
import type { DemoObject } from '../../src/demo/store';
import { eventually } from '../support/eventually';
import { startTestCluster, type TestCluster } from './demo-support';
import { chain, nestedText } from '../support/deep';

const never = new AbortController().signal;
const LEVELS = 4_000;

describe('a custom resource nested 4,000 levels', () => {
  let t: TestCluster;
  before(async () => {
    t = await startTestCluster({ crds: [{ group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true }] });
    const widget = (name: string, spec: unknown) =>
      ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec }) as DemoObject;
    t.cluster.store.create('example.com', 'widgets', widget('deep', JSON.parse(nestedText(LEVELS, '0'))));
    t.cluster.store.create('example.com', 'widgets', widget('flat', { n: 0 }));
  });
  after(async () => {
    await t.close();
  });

  const edit = (name: string, spec: unknown) => {
    const o = t.cluster.store.get('example.com', 'widgets', 'default', name)!;
    return t.cluster.store.update('example.com', 'widgets', { ...o, spec } as DemoObject).metadata.resourceVersion;
  };

  it('kubeloop sync --record: every edit of it and of its neighbour is held and recorded, cut at 1,000 levels, with one warning', async () => {
    const file = join(t.dir, 'deep.klr');
    const err: string[] = [];
    const stop = new AbortController();
    const running = runSync(['--kubeconfig', t.kubeconfig, '--watch', 'widgets.example.com', '--record', file, '--json'], {
      stdout: () => undefined,
      stderr: (l) => err.push(l),
      signal: stop.signal,
    });
    let last: { deep: string; flat: string } = { deep: '', flat: '' };
    try {
      const recorded = async (want: { deep: string; flat: string }) => {
        if (!existsSync(file)) return undefined;
        const r = await Recording.open(file, never);
        try {
          const objs = await r.objectsAt(Infinity, never);
          const rv = (k: string) => (objs.get(`widgets.example.com/default/${k}`)?.metadata as Obj | undefined)?.resourceVersion;
          return rv('deep') === want.deep && rv('flat') === want.flat ? objs : undefined;
        } finally {
          r.close();
        }
      };
      const rvOf = (name: string) => t.cluster.store.get('example.com', 'widgets', 'default', name)!.metadata.resourceVersion!;
      last = { deep: rvOf('deep'), flat: rvOf('flat') };
      await eventually(() => recorded(last), { description: 'the first list recorded', timeoutMs: 60_000 });
      for (let i = 1; i <= 5; i++) last = { deep: edit('deep', JSON.parse(nestedText(LEVELS, String(i))))!, flat: edit('flat', { n: i })! };
      const objs = await eventually(() => recorded(last), { description: `every edit recorded (${err.join(' | ')})`, timeoutMs: 60_000 });
      const deep = objs.get('widgets.example.com/default/deep')!;
      assert.deepEqual(chain(deep.spec), { levels: MAX_OBJECT_DEPTH - 1, end: TRUNCATED });
      assert.deepEqual(objs.get('widgets.example.com/default/flat')!.spec, { n: 5 });
    } finally {
      stop.abort(new Error('test over'));
    }
    assert.equal(await running, 0);
    const r = await Recording.open(file, never);
    const history = await r.historyOf('widgets.example.com/default/deep', never);
    r.close();
    assert.equal(history.filter((c) => c.op === 'M').length, 5, 'every edit of the deep object recorded');
    assert.deepEqual(
      err.filter((l) => /Reflector|recording stopped|relist/i.test(l)),
      [],
      'no reflector failure or relist, the recording never stopped',
    );
    const warnings = err.filter((l) => l.includes('nests deeper'));
    assert.deepEqual(warnings, [
      `kubeloop sync: warning: Widget default/deep (example.com/v1) nests deeper than 1000 levels: it is kept cut at that depth, each deeper part replaced by "${TRUNCATED}"`,
    ]);
  });

  it('kubeloop load: counts it with the rest (exit 0) from its metadata, so nothing deep is read and nothing is named', async () => {
    // A counting load lists a kind the protobuf walker does not read metadata-only (countsOnly): a
    // new deep object's spec never reaches this process, which therefore has nothing to cut or name.
    t.cluster.store.create('example.com', 'widgets', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'deep-2', namespace: 'default' },
      spec: JSON.parse(nestedText(LEVELS, '0')),
    } as DemoObject);
    const out: string[] = [];
    const err: string[] = [];
    const code = await runLoad(['--kubeconfig', t.kubeconfig, '--include', 'widgets.example.com', '--json'], {
      stdout: { write: (s: string) => out.push(s) },
      stderr: { write: (s: string) => err.push(s) },
    });
    assert.equal(code, 0, err.join(''));
    assert.equal((JSON.parse(out.join('')) as { objects: number }).objects, 3, out.join(''));
    assert.deepEqual(err, []);
  });
});
