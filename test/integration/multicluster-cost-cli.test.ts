/**
 * `kubeloop load --context A --context B` prints each context's API cost under its summary, as a lone
 * `kubeloop load` does (requests, bytes, 429s with their Retry-After, the priority level): two demo
 * clusters over real sockets, one answering a list with 429 Retry-After 1 once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from '../../src/cli/load';
import { capture } from '../support/capture';
import { mergeKubeconfigs } from '../support/kubeconfigs';
import { demo, type Fixture } from './loader-helpers';

describe('kubeloop load with several contexts: the API cost of each', () => {
  const fx: Record<string, Fixture> = {};
  let dir: string;
  let kubeconfig: string;

  before(async () => {
    fx.calm = await demo(50);
    fx.busy = await demo(50);
    fx.busy.cluster.faults.add({ kind: 'throttle', verb: 'list', resource: 'configmaps', times: 1, retryAfterSeconds: 1 });
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-multi-cost-'));
    kubeconfig = join(dir, 'kubeconfig');
    mergeKubeconfigs(
      Object.entries(fx).map(([name, f]) => ({ name, file: f.kubeconfig })),
      kubeconfig,
    );
  });
  after(async () => {
    for (const f of Object.values(fx)) await f.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("each context's section ends with its API cost line", { timeout: 60_000 }, async () => {
    const c = capture();
    const code = await runLoad(['--kubeconfig', kubeconfig, '--context', 'calm', '--context', 'busy', '--no-discovery-cache'], c.io);
    assert.equal(code, 0, c.err);
    const sections = c.out.split(/^== context /m).slice(1);
    assert.deepEqual(
      sections.map((s) => s.slice(0, s.indexOf(' '))),
      ['calm', 'busy'],
    );
    const cost = (s: string) => s.split('\n').find((l) => l.startsWith('API cost: '));
    assert.match(
      cost(sections[0]!) ?? '',
      /^API cost: [\d,]+ requests, [\d.]+ (B|KiB|MiB), no 429; seats held \(estimated\): .*; priority level: none reported/,
    );
    assert.match(cost(sections[1]!) ?? '', /^API cost: [\d,]+ requests, [\d.]+ (B|KiB|MiB), 1 × 429 \(Retry-After 1 s in all\)/);
  });
});
