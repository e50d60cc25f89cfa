// An object's Events (src/core/relations/events.ts): matched by uid, else kind/namespace/name;
// read alike from core/v1 and events.k8s.io/v1 shapes; warnings filter; newest first, one row per Event.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventFieldSelector, eventRow, eventsAbout, isAbout } from '../../src/core/relations/events';
import type { KubeObject } from '../../src/core/kube/objects/types';

const target = { uid: 'u1', kind: 'Widget', name: 'w1', namespace: 'ns' };
const core = (
  uid: string,
  involved: Record<string, unknown>,
  type = 'Normal',
  last = '2026-01-01T00:00:00Z',
  extra: Record<string, unknown> = {},
): KubeObject => ({
  metadata: { name: uid, namespace: 'ns', uid },
  involvedObject: involved,
  type,
  reason: `R-${uid}`,
  message: `m-${uid}`,
  count: 2,
  lastTimestamp: last,
  source: { component: 'op' },
  ...extra,
});

describe('events about an object', () => {
  it('matches by uid when both have one, so a same-named earlier object is not matched', () => {
    assert.equal(isAbout(core('e1', { uid: 'u1', kind: 'Widget', name: 'w1', namespace: 'ns' }), target), true);
    assert.equal(isAbout(core('e2', { uid: 'u0', kind: 'Widget', name: 'w1', namespace: 'ns' }), target), false);
  });

  it('falls back to kind, namespace and name when the Event names no uid', () => {
    assert.equal(isAbout(core('e1', { kind: 'Widget', name: 'w1', namespace: 'ns' }), target), true);
    assert.equal(isAbout(core('e2', { kind: 'Widget', name: 'w1', namespace: 'other' }), target), false);
    assert.equal(isAbout(core('e3', { kind: 'Gadget', name: 'w1', namespace: 'ns' }), target), false);
  });

  it('reads an events.k8s.io/v1 Event (regarding, note, series, reportingController)', () => {
    const e: KubeObject = {
      metadata: { name: 'x', namespace: 'ns', uid: 'e9' },
      regarding: { uid: 'u1', kind: 'Widget', name: 'w1', namespace: 'ns' },
      type: 'Warning',
      reason: 'Failed',
      note: 'it broke',
      series: { count: 7, lastObservedTime: '2026-01-02T00:00:00.000000Z' },
      reportingController: 'example.com/op',
      eventTime: '2026-01-01T00:00:00.000000Z',
    };
    assert.equal(isAbout(e, target), true);
    assert.deepEqual(eventRow(e), {
      uid: 'e9',
      type: 'Warning',
      reason: 'Failed',
      message: 'it broke',
      count: 7,
      lastSeen: Date.parse('2026-01-02T00:00:00Z'),
      source: 'example.com/op',
    });
  });

  it('filters warnings, sorts newest first and keeps one row per Event uid (its latest)', () => {
    const rows = eventsAbout(
      [
        core('a', { uid: 'u1' }, 'Normal', '2026-01-01T00:00:01Z'),
        core('b', { uid: 'u1' }, 'Warning', '2026-01-01T00:00:03Z'),
        core('a', { uid: 'u1' }, 'Normal', '2026-01-01T00:00:05Z'),
        core('c', { uid: 'other' }, 'Warning', '2026-01-01T00:00:09Z'),
      ],
      target,
    );
    assert.deepEqual(
      rows.map((r) => [r.uid, r.lastSeen]),
      [
        ['a', Date.parse('2026-01-01T00:00:05Z')],
        ['b', Date.parse('2026-01-01T00:00:03Z')],
      ],
    );
    assert.deepEqual(
      eventsAbout([core('a', { uid: 'u1' }), core('b', { uid: 'u1' }, 'Warning')], target, true).map((r) => r.uid),
      ['b'],
    );
  });

  it('selects by uid when known, by kind/name/namespace otherwise', () => {
    assert.equal(eventFieldSelector(target), 'involvedObject.uid=u1');
    assert.equal(eventFieldSelector({ kind: 'Node', name: 'n1' }), 'involvedObject.kind=Node,involvedObject.name=n1');
  });
});
