/**
 * A real kubelet's -v=4 log read into the loop's vocabulary, and the differential's rules: what a
 * workstation can observe, and in which order. The fixture is lines a real kubelet wrote (the lab's
 * hollow node, k8s v1.36.3); the comparisons are built from the same vocabulary by hand.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseBody, parseKlogLine, parseList, parseStruct } from '../../src/core/kubeletlog/klog';
import { KubeletLogReader, readKubeletLog, summarizeStatus, type KubeletRecord, type StatusSummary } from '../../src/core/kubeletlog/records';
import { compare, lcsPairs, matchedShare, type LoopIteration } from '../../src/core/kubeletlog/compare';

const FIXTURE = fs.readFileSync(path.join(__dirname, '../fixtures/kubelet/probe-me-and-graceful.log'), 'utf8');

describe('klog text format', () => {
  it('reads the header (severity, UTC time to the microsecond, thread, file:line), the quoted message and key=value pairs', () => {
    const l = parseKlogLine(
      'I1207 03:28:48.459832   12657 kubelet.go:2737] "SyncLoop (PLEG): event for pod" pod="default/probe-me" event={"ID":"u1","Type":"ContainerStarted","Data":"c 1"}',
      2026,
    )!;
    assert.equal(l.severity, 'I');
    assert.equal(new Date(l.at).toISOString(), '2026-12-07T03:28:48.459Z');
    assert.equal(l.time, '03:28:48.459832');
    assert.equal(l.thread, 12657);
    assert.equal(l.source, 'kubelet.go:2737');
    assert.equal(l.msg, 'SyncLoop (PLEG): event for pod');
    assert.deepEqual(parseStruct(l.kv.event), { ID: 'u1', Type: 'ContainerStarted', Data: 'c 1' });
    assert.equal(l.kv.pod, 'default/probe-me');
    assert.equal(parseKlogLine('not a klog line'), undefined);
  });

  it('unquotes Go strings (escapes, \\u sequences), keeps structures whole, and reads Go %+v structs and slices too', () => {
    const { msg, kv } = parseBody('"Event occurred" message="say \\"hi\\"\\nthere \\u00e9" pods=["a/b","c/d"] n=3 err=<nil>');
    assert.equal(msg, 'Event occurred');
    assert.equal(kv.message, 'say "hi"\nthere é');
    assert.deepEqual(parseList(kv.pods), ['a/b', 'c/d']);
    assert.equal(kv.n, '3');
    assert.equal(kv.err, '<nil>');
    assert.deepEqual(parseStruct('&{ID:u1 Type:ContainerDied Data:abc}'), { ID: 'u1', Type: 'ContainerDied', Data: 'abc' });
    assert.deepEqual(parseList('[a/b c/d]'), ['a/b', 'c/d']);
    assert.deepEqual(parseBody('an unstructured line: 3 things'), { msg: 'an unstructured line: 3 things', kv: {} });
  });
});

describe('a kubelet log as records in the loop vocabulary', () => {
  const records = readKubeletLog(FIXTURE, 2026);
  const brief = (r: KubeletRecord) => `${r.source} ${r.op} ${r.keys.join(',')}${r.handler !== 'none' ? ` ${r.handler}` : ''}`;

  it('every line the loop has a name for, in order, with its handler (a real kubelet: probe-me killed once, then a graceful delete)', () => {
    const probeMe = records.filter((r) => r.keys.includes('default/probe-me') && r.source !== 'event' && r.source !== 'status');
    assert.deepEqual(probeMe.map(brief), [
      'config ADD default/probe-me HandlePodAdditions',
      'podworker created default/probe-me',
      'config RECONCILE default/probe-me HandlePodReconcile',
      'pleg ContainerStarted default/probe-me HandlePodSyncs',
      'pleg ContainerStarted default/probe-me HandlePodSyncs',
      'config RECONCILE default/probe-me HandlePodReconcile',
      'probe liveness default/probe-me HandlePodSyncs',
      'pleg ContainerDied default/probe-me HandlePodSyncs',
      'pleg ContainerStarted default/probe-me HandlePodSyncs',
      'config RECONCILE default/probe-me HandlePodReconcile',
      'config DELETE default/probe-me HandlePodUpdates',
      'sync tick default/probe-me HandlePodSyncs',
      'pleg ContainerDied default/probe-me HandlePodSyncs',
      'config DELETE default/probe-me HandlePodUpdates',
      'config REMOVE default/probe-me HandlePodRemoves',
    ]);
    const died = records.find((r) => r.op === 'ContainerDied')!;
    assert.equal(died.uid, '062afe05-4e90-46a0-8f00-75284971170e');
    assert.equal(died.data, 'probe-me_default_062afe05-4e90-46a0-8f00-75284971170e_0_probe-me_0');
    assert.equal(records.find((r) => r.source === 'probe')!.data, 'unhealthy');
  });

  it("a pod worker's sync is one span from its enter to its exit: killPod blocked for the 10 s grace period", () => {
    const terminating = records.find((r) => r.keys.includes('default/graceful') && r.handler === 'SyncTerminatingPod')!;
    assert.equal(terminating.op, 'terminating');
    assert.ok(terminating.durationMs! > 10_000 && terminating.durationMs! < 10_010, `${terminating.durationMs} ms`);
    assert.ok(records.some((r) => r.keys.includes('default/graceful') && r.op === 'terminating' && r.message === 'marked for graceful deletion'));
  });

  it('a status write keeps what it reported: phase, sandbox, the containers running and exited; a kubelet Event its reason and message', () => {
    const writes = records.filter((r) => r.source === 'status');
    assert.deepEqual(writes[0]!.status, { running: [], exited: [], ready: [], started: [], phase: 'Pending', sandboxReady: false });
    const last = writes.at(-1)!.status!;
    assert.equal(last.phase, 'Failed');
    assert.deepEqual(last.exited, ['graceful_default_6b13ffe2-6e01-4e61-9c84-d330f918287f_0_graceful_0']);
    const killing = records.find((r) => r.source === 'event' && r.op === 'Killing')!;
    assert.equal(killing.data, 'Container probe-me failed liveness probe, will be restarted');
  });

  it('lines split across chunks, a multi-line value (`key=<` ... ` >`) and a log cut mid-value all read', () => {
    const text = [
      'I1207 03:26:43.984783   12655 event.go:389] "Event occurred" object="default/x" kind="Pod" type="Warning" reason="Unhealthy" message=<',
      "\tLiveness probe failed: cat: can't open '/tmp/healthy': No such file or directory",
      ' >',
      'I1207 03:26:44.014666   12655 kubelet.go:2803] "SyncLoop (housekeeping)"',
      'I1207 03:26:45.000000   12655 event.go:389] "Event occurred" object="default/x" reason="BackOff" message=<',
      '\tBack-off restarting failed container',
    ].join('\n');
    const reader = new KubeletLogReader(2026);
    const out: KubeletRecord[] = [];
    for (let i = 0; i < text.length; i += 37) out.push(...reader.push(text.slice(i, i + 37)));
    out.push(...reader.end());
    assert.deepEqual(
      out.map((r) => `${r.source} ${r.op} ${r.data ?? ''}`.trim()),
      [
        "event Unhealthy Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory",
        'housekeeping tick',
        'event BackOff Back-off restarting failed container',
      ],
    );
  });

  it('summarizeStatus reads container IDs without their runtime scheme, lastState included, and refuses what is not JSON', () => {
    const s = summarizeStatus(
      JSON.stringify({
        phase: 'Running',
        conditions: [{ type: 'PodReadyToStartContainers', status: 'True' }],
        containerStatuses: [
          {
            name: 'a',
            ready: true,
            started: true,
            containerID: 'containerd://c2',
            state: { running: {} },
            lastState: { terminated: { containerID: 'containerd://c1' } },
          },
        ],
      }),
    );
    assert.deepEqual(s, { phase: 'Running', sandboxReady: true, running: ['c2'], exited: ['c1'], ready: ['a'], started: ['a'] });
    assert.equal(summarizeStatus('{not json'), undefined);
  });
});

/** Builders for the differential's two sides, times in ms from 0. */
let rv = 0;
const uid = 'u1';
const key = 'ns/p';
function k(at: number, source: KubeletRecord['source'], op: string, extra: Partial<KubeletRecord> = {}): KubeletRecord {
  return { at, source, op, keys: [key], handler: 'h', outcome: 'ok', raw: `line ${rv++}`, ...extra };
}
const write = (at: number, status: Partial<StatusSummary>): KubeletRecord =>
  k(at, 'status', 'write', { status: { running: [], exited: [], ready: [], started: [], ...status } });
function l(at: number, source: string, op: string, extra: Partial<LoopIteration> = {}): LoopIteration {
  return { at, source, op, key, handler: 'h', outcome: 'ok', uid, ...extra };
}

describe('the differential: what a workstation observes, in the order it can observe it', () => {
  it('a container start sits before the echo of the first write that reports it (the kubelet wrote it one write late): causes first matches', () => {
    const kubelet = [
      k(0, 'config', 'ADD'),
      k(10, 'pleg', 'ContainerStarted', { uid, data: 'c1' }),
      write(12, { sandboxReady: false }),
      k(13, 'config', 'RECONCILE'),
      write(20, { running: ['c1'] }),
      k(21, 'config', 'RECONCILE'),
    ];
    const loop = [l(1, 'config', 'ADD'), l(14, 'config', 'RECONCILE'), l(22, 'pleg', 'ContainerStarted', { data: 'c1' }), l(22, 'config', 'RECONCILE')];
    const c = compare(kubelet, loop);
    assert.deepEqual(matchedShare(c), { kubelet: 4, matched: 4, share: 1 });
    assert.deepEqual(c.extra, []);
    // the effect before its cause would not match
    const effectsFirst = compare(kubelet, [loop[0]!, loop[1]!, loop[3]!, { ...loop[2]!, at: 23 }]);
    assert.equal(matchedShare(effectsFirst).matched, 3);
  });

  it("a teardown's deaths sit after the echo of the write that reports them: the kubelet's relist races its own write", () => {
    const kubelet = [
      k(0, 'config', 'DELETE'),
      k(50, 'pleg', 'ContainerDied', { uid, data: 'c1' }),
      write(51, { exited: ['c1'] }),
      k(52, 'config', 'RECONCILE'),
      k(60, 'config', 'REMOVE'),
    ];
    const loop = [l(1, 'config', 'DELETE'), l(53, 'config', 'RECONCILE'), l(400, 'pleg', 'ContainerDied', { data: 'c1' }), l(401, 'config', 'REMOVE')];
    assert.equal(matchedShare(compare(kubelet, loop)).share, 1);
  });

  it("a new container's initial probe results sit right after its start (the prober's first tick is not observable); other results before the write that shows them", () => {
    const kubelet = [
      k(0, 'pleg', 'ContainerStarted', { uid, data: 'c1' }),
      write(5, { running: ['c1'] }),
      k(6, 'config', 'RECONCILE'),
      k(2000, 'probe', 'startup', { data: 'unhealthy' }),
      k(2001, 'probe', 'readiness', { data: 'not ready' }),
      k(6000, 'probe', 'readiness', { data: 'ready' }),
      write(6005, { running: ['c1'], ready: ['a'] }),
      k(6006, 'config', 'RECONCILE'),
    ];
    const loop = [
      l(7, 'pleg', 'ContainerStarted', { data: 'c1' }),
      l(7, 'probe', 'readiness', { data: 'not ready', inferred: true }),
      l(7, 'probe', 'startup', { data: 'unhealthy', inferred: true }),
      l(8, 'config', 'RECONCILE'),
      l(6007, 'probe', 'readiness', { data: 'ready' }),
      l(6007, 'config', 'RECONCILE'),
    ];
    const c = compare(kubelet, loop);
    assert.equal(matchedShare(c).share, 1, JSON.stringify(c.alignments, null, 1));
  });

  it("the pod worker's syncs are a sequence of their own (another goroutine upstream), and each side's unmatched lines are listed", () => {
    const kubelet = [k(0, 'config', 'DELETE'), k(1, 'podworker', 'terminating', { uid, handler: 'SyncTerminatingPod' }), k(5, 'config', 'REMOVE')];
    const loop = [
      l(1, 'config', 'DELETE'),
      l(6, 'config', 'REMOVE'),
      l(7, 'podworker', 'terminating', { handler: 'SyncTerminatingPod' }),
      l(8, 'pleg', 'ContainerDied', { data: 'x', inferred: true }),
    ];
    const c = compare(kubelet, loop);
    assert.deepEqual(matchedShare(c), { kubelet: 3, matched: 3, share: 1 });
    assert.deepEqual(
      c.extra.map((x) => `${x.cls} ${x.inferred}`),
      ['pleg ContainerDied true'],
    );
  });

  it('two incarnations of a name are compared apart: the old REMOVE (no UID in its line) is the old one, the new ADD the new one', () => {
    const kubelet = [
      k(0, 'config', 'ADD'),
      k(2, 'podworker', 'created', { uid: 'old' }),
      k(100, 'config', 'REMOVE'),
      k(110, 'config', 'ADD'),
      k(115, 'podworker', 'created', { uid: 'new' }),
    ];
    const loop = [l(1, 'config', 'ADD', { uid: 'old' }), l(101, 'config', 'REMOVE', { uid: 'old' }), l(111, 'config', 'ADD', { uid: 'new' })];
    const c = compare(kubelet, loop);
    assert.equal(c.pods, 2);
    assert.deepEqual(matchedShare(c), { kubelet: 3, matched: 3, share: 1 });
  });

  it('lcsPairs is a longest common subsequence, in order', () => {
    assert.deepEqual(lcsPairs(['a', 'b', 'c', 'd'], ['b', 'x', 'd']), [
      [1, 0],
      [3, 2],
    ]);
    assert.deepEqual(lcsPairs([], ['a']), []);
  });
});
