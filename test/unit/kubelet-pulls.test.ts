// The kubelet simulation's image pulls when asked to be realistic (KubeletOptions.imagePulls), on a
// fake clock: per-image pull time, one pull at a time per node (the Pulled message's "including
// waiting" counts the queue), a first pull that fails (ErrImagePull, BackOff, the retry after the
// image back-off), and the start-up model reading what it wrote.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import type { DemoObject } from '../../src/demo/store';
import { startKubelet, type KubeletOptions } from '../../src/demo/kubelet';
import { startupReport } from '../../src/core/startup/report';
import { kubeletStore, WALL } from './kubelet-helpers';

function harness(imagePulls: KubeletOptions['imagePulls']) {
  const clock = new FakeClock();
  const store = kubeletStore(clock);
  const kubelet = startKubelet(store, { clock, wallStart: WALL, nodes: 1, ...(imagePulls ? { imagePulls } : {}) });
  const create = (name: string, image: string) =>
    store.create('', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: { containers: [{ name: 'app', image }] },
    } as DemoObject);
  const events = (name: string) =>
    store
      .list('', 'events', 'default')
      .items.filter((e: any) => e.involvedObject.name === name)
      .map((e: any) => `${e.reason}: ${e.message}${e.count > 1 ? ` x${e.count}` : ''}`);
  const state = (name: string) => (store.get('', 'pods', 'default', name)!.status as any)?.containerStatuses?.[0]?.state;
  return { clock, store, kubelet, create, events, state, at: (ms: number) => clock.advance(ms - clock.now()) };
}

describe('kubelet simulation: image pulls', () => {
  it('without the option: 700ms pulls in parallel, as always', async () => {
    const h = harness(undefined);
    h.create('a', 'big:1');
    h.create('b', 'big:1');
    await h.at(2000);
    for (const p of ['a', 'b'])
      assert.match(
        h.events(p).find((e) => e.startsWith('Pulled'))!,
        /^Pulled: Successfully pulled image "big:1" in 700ms \(700ms including waiting\)\. Image size: \d+ bytes\.$/,
      );
    h.kubelet.stop();
  });

  it('per-image time, one pull at a time per node: the second pull says how long it waited', async () => {
    const h = harness({ seconds: { 'big:1': 90 } });
    h.create('a', 'big:1');
    h.create('b', 'big:1');
    await h.at(91_000);
    assert.match(
      h.events('a').find((e) => e.startsWith('Pulled'))!,
      /^Pulled: Successfully pulled image "big:1" in 1m30s \(1m30s including waiting\)\. Image size: \d+ bytes\.$/,
    );
    assert.equal(
      h.events('b').find((e) => e.startsWith('Pulled')),
      undefined,
      'b waits for the node to finish a',
    );
    await h.at(181_000);
    assert.match(
      h.events('b').find((e) => e.startsWith('Pulled'))!,
      /^Pulled: Successfully pulled image "big:1" in 1m30s \(3m0s including waiting\)\. Image size: \d+ bytes\.$/,
    );
    await h.at(182_000);
    // The start-up model reads it back: b's pull phase is the 180 s it waited and pulled, which the SLI leaves out.
    const [g] = startupReport(h.store.list('', 'pods', 'default').items as never, h.store.list('', 'events', 'default').items as never);
    const b = g!.pods.find((p) => p.name === 'b')!;
    assert.equal(g!.pods[0]!.name, 'b', 'slowest first');
    assert.deepEqual(
      b.phases.find((p) => p.name === 'imagePull')!.pulls!.map((p) => [p.pullMs, p.withWaitingMs]),
      [[90_000, 180_000]],
    );
    assert.equal(b.sli.pullMs, 180_000);
    assert.ok(b.sli.ms! >= 0 && b.sli.ms! <= 2000, `SLI ${b.sli.ms}`);
    h.kubelet.stop();
  });

  it('a first pull that fails: Failed, ErrImagePull, BackOff, ImagePullBackOff, then the retry after 10 s', async () => {
    const h = harness({ defaultSeconds: 2, failRate: 1 });
    h.create('a', 'flaky:1');
    await h.at(2400);
    assert.equal(h.state('a').waiting.reason, 'ErrImagePull');
    await h.at(3400);
    assert.equal(h.state('a').waiting.reason, 'ImagePullBackOff');
    assert.match(h.state('a').waiting.message, /^Back-off pulling image "flaky:1": ErrImagePull: rpc error: .*503 Service Unavailable$/);
    await h.at(14_500);
    assert.ok(h.state('a').running, 'retried after the 10 s back-off, and the retry succeeds');
    const ev = h.events('a');
    assert.deepEqual(
      ev.map((e) => e.replace(/: .*? x(\d+)$/, ' x$1').replace(/: .*$/, '')),
      ['Scheduled', 'Pulling x2', 'Failed', 'Failed', 'BackOff', 'Failed', 'Pulled', 'Created', 'Started'],
    );
    assert.ok(ev.includes('Failed: Error: ErrImagePull') && ev.includes('Failed: Error: ImagePullBackOff'));
    assert.ok(ev.some((e) => /^Failed: Failed to pull image "flaky:1": rpc error/.test(e)));
    const [g] = startupReport(h.store.list('', 'pods', 'default').items as never, h.store.list('', 'events', 'default').items as never);
    const pull = g!.pods[0]!.phases.find((p) => p.name === 'imagePull')!;
    assert.deepEqual(
      pull.retries.map((r) => r.reason),
      ['Failed', 'Failed', 'BackOff', 'Failed'],
    );
    h.kubelet.stop();
    assert.deepEqual(h.kubelet.stats(), { workers: 0, pendingTimers: 0 });
  });
});
