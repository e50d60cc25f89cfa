// The demo cluster's Event TTL (kube-apiserver's --event-ttl): Events of both APIs expire a TTL
// after their last write, a rewrite renews them, other kinds are never touched, watchers see
// DELETED, and stop() leaves no timer. On the real ObjectStore with core's FakeClock.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { startEventTtl } from '../../src/demo/eventTtl';
import { ObjectStore, type DemoObject, type StoreEvent, type TypeInfo } from '../../src/demo/store';

const verbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const types: TypeInfo[] = [
  { group: '', version: 'v1', resource: 'events', kind: 'Event', listKind: 'EventList', singular: 'event', namespaced: true, verbs, generation: false },
  {
    group: 'events.k8s.io',
    version: 'v1',
    resource: 'events',
    kind: 'Event',
    listKind: 'EventList',
    singular: 'event',
    namespaced: true,
    verbs,
    generation: false,
  },
  {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    kind: 'ConfigMap',
    listKind: 'ConfigMapList',
    singular: 'configmap',
    namespaced: true,
    verbs,
    generation: false,
  },
];
const HOUR = 3_600_000;

function setup() {
  const store = new ObjectStore();
  for (const t of types) store.registerType(t);
  const clock = new FakeClock();
  const event = (group: string, name: string): DemoObject =>
    store.create(group, 'events', {
      apiVersion: group ? 'events.k8s.io/v1' : 'v1',
      kind: 'Event',
      metadata: { name, namespace: 'default' },
      reason: 'Test',
    } as DemoObject);
  return { store, clock, event };
}

const names = (store: ObjectStore, group: string) =>
  store
    .list(group, 'events')
    .items.map((o) => o.metadata.name)
    .sort();

describe('demo cluster: Event TTL', () => {
  it('deletes Events of both APIs a TTL after their last write (within a minute); a rewrite renews one', async () => {
    const { store, clock, event } = setup();
    event('', 'at-start'); // present before the sweeper: counts from its start
    const ttl = startEventTtl(store, clock, HOUR);
    await clock.advance(30 * 60_000);
    event('', 'later');
    event('events.k8s.io', 'new-api');
    const renewed = store.get('', 'events', 'default', 'at-start')!;
    await clock.advance(20 * 60_000); // 50 min: rewrite at-start, renewing its lease
    store.update('', 'events', { ...renewed, count: 2 } as DemoObject);
    await clock.advance(15 * 60_000); // 65 min: nothing is an hour past its last write yet
    assert.deepEqual(names(store, ''), ['at-start', 'later']);
    await clock.advance(30 * 60_000); // 95 min: later and new-api (written at 30) are gone; at-start, rewritten at 50, lives
    assert.deepEqual(names(store, ''), ['at-start']);
    assert.deepEqual(names(store, 'events.k8s.io'), []);
    await clock.advance(14 * 60_000); // 109 min
    assert.deepEqual(names(store, ''), ['at-start'], 'not before its hour is up');
    await clock.advance(2 * 60_000); // 111 min: the sweep (every minute) took it
    assert.deepEqual(names(store, ''), []);
    ttl.stop();
  });

  it('never touches other kinds, and watchers see each expiry as DELETED', async () => {
    const { store, clock, event } = setup();
    store.create('', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep', namespace: 'default' } } as DemoObject);
    const ttl = startEventTtl(store, clock, 60_000);
    event('', 'e1');
    event('', 'e2');
    const seen: StoreEvent[] = [];
    const off = store.subscribe((e) => seen.push(e));
    await clock.advance(2 * 60_000);
    off();
    assert.deepEqual(seen.map((e) => `${e.type} ${e.resource}/${e.object.metadata.name}`).sort(), ['DELETED events/e1', 'DELETED events/e2']);
    assert.equal(store.list('', 'configmaps').items.length, 1);
    ttl.stop();
  });

  it('an Event a client deleted first is no error; stop() leaves no pending timer', async () => {
    const { store, clock, event } = setup();
    const ttl = startEventTtl(store, clock, 60_000);
    event('', 'gone');
    store.delete('', 'events', 'default', 'gone');
    event('', 'stays-past-stop');
    assert.equal(ttl.sweep(), 0, 'nothing old enough yet');
    assert.equal(clock.pendingTimers(), 1, 'one sweep pending');
    await clock.advance(59_000);
    assert.deepEqual(names(store, ''), ['stays-past-stop'], 'swept at 15 s intervals (ttl / 4), not expired before its minute');
    ttl.stop();
    assert.equal(clock.pendingTimers(), 0);
    await clock.advance(10 * 60_000);
    assert.deepEqual(names(store, ''), ['stays-past-stop'], 'a stopped sweeper deletes nothing');
  });

  it('refuses a TTL that is not positive', () => {
    const { store, clock } = setup();
    assert.throws(() => startEventTtl(store, clock, 0), /event TTL must be > 0/);
    assert.throws(() => startEventTtl(store, clock, Number.NaN), /event TTL must be > 0/);
  });
});
