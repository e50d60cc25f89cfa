/**
 * The discovery cache's file handling (real files in a temp folder): what is a hit, what is a miss
 * (corrupt, truncated, foreign, expired, future-dated), what is never written (an incomplete
 * discovery), and that entries are private and keyed apart per server and per user.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { DiscoveryCache, type Discovery } from '../../src/core/kube';
import { contextFor, tempDir } from './kube-helpers';

const t = tempDir();
after(() => t.cleanup());

const discovery: Discovery = {
  mode: 'aggregated',
  groups: [
    {
      name: '',
      preferredVersion: 'v1',
      versions: [
        {
          version: 'v1',
          stale: false,
          resources: [
            { group: '', version: 'v1', resource: 'pods', kind: 'Pod', singular: 'pod', namespaced: true, verbs: ['list'], shortNames: ['po'], categories: [] },
          ],
        },
      ],
    },
  ],
  failures: [],
};

describe('discovery cache files', () => {
  const ctx = contextFor('https://api.example.com:6443', { token: 'secret-token-value' });
  let now = 1_000_000;
  const cache = (c = ctx, ttlMs = 60_000) => new DiscoveryCache(c, { dir: t.dir, ttlMs, now: () => now });

  it('a written entry reads back with its age; it holds no credential; files are private', async () => {
    assert.equal(await cache().write(discovery), true);
    now += 5_000;
    const hit = await cache().read();
    assert.deepEqual(hit, { discovery, ageMs: 5_000 });
    const c = cache();
    assert.ok(!readFileSync(c.file, 'utf8').includes('secret-token-value'));
    assert.match(c.folder, /api\.example\.com_6443-[0-9a-f]{12}$/);
    assert.equal(statSync(c.file).mode & 0o777, 0o600);
    assert.equal(statSync(c.folder).mode & 0o777, 0o700);
  });

  it('expired and future-dated entries are misses', async () => {
    now = 1_000_000;
    await cache().write(discovery);
    now += 60_000;
    assert.equal(await cache().read(), undefined, 'at the TTL');
    now = 1_000_000 - 1;
    assert.equal(await cache().read(), undefined, 'from the future');
  });

  it('corrupt, truncated, wrong-shaped and foreign entries are misses, and a write repairs them', async () => {
    now = 2_000_000;
    const c = cache();
    await c.write(discovery);
    const good = readFileSync(c.file, 'utf8');
    for (const bad of [
      '',
      'not json',
      good.slice(0, good.length / 2),
      '{"format":1}',
      good.replace('"aggregated"', '"other"'),
      good.replace('https://api.example.com:6443', 'https://evil.example.com:6443'),
      '[]',
      'null',
    ]) {
      writeFileSync(c.file, bad);
      assert.equal(await c.read(), undefined, JSON.stringify(bad.slice(0, 40)));
    }
    assert.equal(await c.write(discovery), true);
    assert.ok(await c.read());
  });

  it('keys: another server (even on the same host:port), or another user, has its own entry', () => {
    const a = cache();
    const otherPath = cache(contextFor('https://api.example.com:6443/prefix', { token: 'secret-token-value' }));
    const otherUser = cache(contextFor('https://api.example.com:6443', { token: 'another-token' }));
    assert.notEqual(a.folder, otherPath.folder);
    assert.equal(a.folder, otherUser.folder);
    assert.notEqual(a.file, otherUser.file);
  });

  it('an incomplete discovery (failed or stale groups) is not written', async () => {
    const c = cache(contextFor('https://incomplete.example.com'));
    assert.equal(await c.write({ ...discovery, failures: [{ groupVersion: 'metrics.k8s.io/v1beta1', status: 503, message: 'unavailable' }] }), false);
    const stale = structuredClone(discovery);
    stale.groups[0].versions[0].stale = true;
    assert.equal(await c.write(stale), false);
    assert.equal(await c.read(), undefined);
  });

  it('an unwritable folder is no error, just no cache', async () => {
    writeFileSync(`${t.dir}/a-file`, 'x');
    const c = new DiscoveryCache(ctx, { dir: `${t.dir}/a-file/below` });
    assert.equal(await c.write(discovery), false);
    assert.equal(await c.read(), undefined);
  });
});
