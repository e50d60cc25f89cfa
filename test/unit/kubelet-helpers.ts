// The demo store the kubelet simulation's unit tests run on: pods, events and nodes registered as
// the core group declares them, its clock a FakeClock offset to a fixed wall time (WALL).
import type { FakeClock } from '../../src/core/clock';
import { ObjectStore, type TypeInfo } from '../../src/demo/store';

export const WALL = Date.parse('2026-03-01T10:00:00Z');
const VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/** A core-group (v1) type as the store registers it. */
export function coreType(resource: string, kind: string, namespaced: boolean, subresources: string[] = [], verbs = VERBS): TypeInfo {
  return { group: '', version: 'v1', resource, kind, listKind: `${kind}List`, singular: kind.toLowerCase(), namespaced, verbs, subresources };
}

/** A store with pods (status), events and nodes (status), whose time is WALL + the clock's. */
export function kubeletStore(clock: FakeClock, verbs = VERBS): ObjectStore {
  const store = new ObjectStore({ now: () => new Date(WALL + clock.now()) });
  store.registerType(coreType('pods', 'Pod', true, ['status'], verbs));
  store.registerType(coreType('events', 'Event', true, [], verbs));
  store.registerType(coreType('nodes', 'Node', false, ['status'], verbs));
  return store;
}
