// "Previous logs" on a restart mark: the webview's message is validated, and the host resolves the
// mark from its own store, so only a ContainerDied of a pod's container it holds leads to logs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { SyncIterationEvent, TimelineEvent } from '../../src/core/timeline/events';
import { TimelineStore } from '../../src/core/timeline/store';
import { parseWebviewMessage } from '../../src/shared/protocol';
import { restartLogsTarget, restartLogsTargetOf } from '../../src/shared/restartMark';

function died(key: string, extra: Partial<SyncIterationEvent> = {}): SyncIterationEvent {
  return {
    kind: 'iteration',
    t: 10,
    source: 'pleg',
    op: 'ContainerDied',
    key,
    handler: 'HandlePodSyncs',
    durationMs: 0.2,
    outcome: 'ok',
    uid: 'u-1',
    data: 'c0',
    message: 'app: exitCode=1 reason="Error" cause=Error',
    container: 'app',
    ...extra,
  };
}

describe('the previousLogs message', () => {
  it('carries only an event id: names the webview adds are dropped, a bad id is refused', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'previousLogs', eventId: 7 }), { type: 'previousLogs', eventId: 7 });
    assert.deepEqual(parseWebviewMessage({ type: 'previousLogs', eventId: 7, pod: 'other', namespace: 'kube-system', context: 'prod' }), {
      type: 'previousLogs',
      eventId: 7,
    });
    for (const eventId of [-1, 1.5, '7', Number.MAX_SAFE_INTEGER + 2, NaN, undefined, null])
      assert.equal(parseWebviewMessage({ type: 'previousLogs', eventId }), undefined, String(eventId));
  });

  it('never throws, and accepts no other shape as previousLogs (property)', () => {
    fc.assert(
      fc.property(fc.anything(), (eventId) => {
        const m = parseWebviewMessage({ type: 'previousLogs', eventId });
        return m === undefined || (m.type === 'previousLogs' && Number.isSafeInteger(m.eventId) && m.eventId >= 0 && Object.keys(m).length === 2);
      }),
    );
  });
});

describe('restartLogsTarget', () => {
  it("a PLEG ContainerDied of a pod's container is a restart mark: its namespace, pod and container", () => {
    assert.deepEqual(restartLogsTarget(died('shop/web-1')), { namespace: 'shop', pod: 'web-1', container: 'app' });
    // a mark recorded before containers were named: the pod's only container is read
    assert.deepEqual(restartLogsTarget(died('shop/web-1', { container: undefined })), { namespace: 'shop', pod: 'web-1' });
  });

  it('anything else is not: a sandbox, another PLEG event, another source, a mark of no pod or of several', () => {
    const not: TimelineEvent[] = [
      died('shop/web-1', { data: '(sandbox)', container: undefined }),
      died('shop/web-1', { op: 'ContainerStarted' }),
      died('shop/web-1', { op: 'ContainerRemoved' }),
      died('shop/web-1', { source: 'probe', op: 'liveness' }),
      died(''),
      died('shop/web-1,shop/web-2/x'),
      died('deployments.apps:shop/web'),
      {
        kind: 'kubelet',
        t: 1,
        node: 'n1',
        source: 'pleg',
        op: 'ContainerDied',
        key: 'shop/web-1',
        handler: 'HandlePodSyncs',
        outcome: 'ok',
        durationMs: 0,
        raw: '',
      },
    ];
    for (const e of not) assert.equal(restartLogsTarget(e), undefined, JSON.stringify(e));
  });
});

describe('restartLogsTargetOf: the host resolves the id in its own store', () => {
  it('finds the mark by id after the ring dropped older events; a dropped or other id finds nothing', () => {
    const store = new TimelineStore(3);
    const tick: SyncIterationEvent = {
      kind: 'iteration',
      t: 1,
      source: 'sync',
      op: 'tick',
      key: '',
      handler: 'HandlePodSyncs',
      durationMs: 0,
      outcome: 'skipped',
    };
    store.append(died('old/gone-1')); // id 0, dropped below
    store.append(tick); // id 1
    store.append(died('shop/web-1')); // id 2
    store.append(tick); // id 3
    store.append(tick); // id 4
    assert.equal(store.dropped, 2);
    assert.deepEqual(restartLogsTargetOf(store, 2), { namespace: 'shop', pod: 'web-1', container: 'app' });
    assert.equal(restartLogsTargetOf(store, 0), undefined, 'a dropped event is gone, not the event now at its slot');
    assert.equal(restartLogsTargetOf(store, 3), undefined, 'not a restart mark');
    assert.equal(restartLogsTargetOf(store, 5), undefined, 'not yet appended');
  });

  it('a restart mark survives the packed ring unchanged (it carries a field the columns do not hold)', () => {
    const store = new TimelineStore(10);
    store.append(died('shop/web-1'));
    assert.deepEqual(store.at(0), died('shop/web-1'));
  });
});
