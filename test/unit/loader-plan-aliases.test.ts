/**
 * Types that serve the same objects are loaded once: core v1 `events` and `events.events.k8s.io`
 * (one Event storage in kube-apiserver). Checked on the real discovery documents of
 * kubernetes/kubernetes (test/fixtures/discovery), core group included.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listableResources, parseAggregated, parseResourceList } from '../../src/core/kube';
import { selectTypes } from '../../src/core/loader/plan';

const fx = (name: string): unknown => JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'discovery', name), 'utf8'));
const core = { name: '', versions: [{ version: 'v1', resources: parseResourceList(fx('api__v1.json'), '', 'v1') }], preferredVersion: 'v1' };
const types = listableResources({ groups: [core as never, ...parseAggregated(fx('aggregated_v2.json')).groups] });
const names = (sel: { selected: { resource: string; group: string }[] }) => sel.selected.map((r) => (r.group ? `${r.resource}.${r.group}` : r.resource));

describe('plan: one type per stored object', () => {
  it('both Event APIs are discovered, and only core events is loaded by default; the plan says why', () => {
    assert.ok(types.some((r) => r.group === '' && r.resource === 'events'));
    assert.ok(types.some((r) => r.group === 'events.k8s.io' && r.resource === 'events'));
    const all = selectTypes(types, [], []);
    assert.ok(names(all).includes('events'));
    assert.ok(!names(all).includes('events.events.k8s.io'));
    assert.equal(all.selected.length, types.length - 1);
    assert.deepEqual(
      all.skipped.map((s) => [s.group, s.resource, s.sameAs]),
      [['events.k8s.io', 'events', '/events']],
    );
    assert.match(all.skipped[0].reason, /the same objects as events; add --include events\.events\.k8s\.io/);
  });

  it('the other one is loaded when include names it by a qualified name, alone or with core events', () => {
    assert.deepEqual(names(selectTypes(types, ['events.events.k8s.io'], [])), ['events.events.k8s.io']);
    const both = selectTypes(types, ['events', 'events.events.k8s.io'], []);
    assert.deepEqual(names(both), ['events', 'events.events.k8s.io']);
    assert.deepEqual(both.skipped, []);
    // a bare name means the core type (kubectl's resolution), so nothing is loaded twice
    assert.deepEqual(names(selectTypes(types, ['events', 'ev'], [])), ['events']);
    // excluding core events leaves events.k8s.io as the one Event type
    const noCore = selectTypes(types, [], ['events']);
    assert.ok(names(noCore).includes('events.events.k8s.io'));
    assert.deepEqual(noCore.skipped, []);
  });
});
