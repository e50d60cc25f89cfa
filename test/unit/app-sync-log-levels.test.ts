// The sync loop's log levels are typed (klog V levels) where each line is made: the real loop's
// lines reach the extension's logger at info or debug by their verbosity, not by their wording.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { TimelineStore } from '../../src/core/timeline/store';
import { SyncLoop } from '../../src/core/syncloop/syncloop';
import { syncLoop } from '../../src/core/syncloop/loop';
import type { Pod } from '../../src/core/kube/objects/pod';
import { createLogger } from '../../src/app/logger';
import { syncLineLevel, syncLogger } from '../../src/app/sync/syncRunner';

const drain = async () => {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
};

const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'probe-me', namespace: 'default', uid: 'u1', resourceVersion: '1' },
  spec: { containers: [{ name: 'c' }] },
  status: { phase: 'Pending' },
};

describe('sync loop log levels', () => {
  it('maps klog verbosity to the extension level like a kubelet at -v=2', () => {
    assert.deepEqual(([0, 1, 2, 3, 4, 5, 6] as const).map(syncLineLevel), ['info', 'info', 'info', 'debug', 'debug', 'debug', 'debug']);
  });

  it('writes config ADD at info and the SYNC and housekeeping ticks at debug, from the real loop', async () => {
    const written: string[] = [];
    const sink = {
      trace: () => undefined,
      debug: (m: string) => written.push(`debug ${m}`),
      info: (m: string) => written.push(`info ${m}`),
      warn: (m: string) => written.push(`warn ${m}`),
      error: (m: string) => written.push(`error ${m}`),
    };
    const clock = new FakeClock();
    const kl = new SyncLoop({
      clock,
      timeline: new TimelineStore(1000),
      sources: ['api'],
      random: () => 0,
      resyncIntervalMs: 3000,
      housekeepingPeriodMs: 2000,
      logger: syncLogger(createLogger(sink, () => 'trace')),
    });
    const ac = new AbortController();
    const done = syncLoop(kl, ac.signal);
    await kl.podConfig.merge('api', { op: 'ADD', source: 'api', pods: [pod] });
    await drain();
    await clock.advance(3000);
    await drain();
    ac.abort();
    await done;
    const levelOf = (prefix: string) => [...new Set(written.filter((l) => l.replace(/^\w+ /, '').startsWith(prefix)).map((l) => l.split(' ')[0]))];
    assert.deepEqual(levelOf('SyncLoop ADD'), ['info']);
    assert.deepEqual(levelOf('SyncLoop (SYNC)'), ['debug']);
    assert.deepEqual(levelOf('SyncLoop (housekeeping'), ['debug'], 'the housekeeping ticks (skipped: the api source has not listed)');
    assert.deepEqual(levelOf('Starting kubelet main sync loop'), ['info']);
  });
});
