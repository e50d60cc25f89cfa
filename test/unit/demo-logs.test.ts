// The demo cluster's container logs: what a container's argv and image write and when
// (kubelet/output.ts), a log's lazy, bounded materialisation (kubelet/logs.ts), the kubelet's
// reading options (server/logslice.ts), and the kubelet simulation writing logs per instance.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import type { DemoObject } from '../../src/demo/store';
import { startKubelet } from '../../src/demo/kubelet';
import { ContainerLog, LogStore, MAX_LOG_LINES, type LogEntry } from '../../src/demo/kubelet/logs';
import { dateCommand, logDate, planOutput } from '../../src/demo/kubelet/output';
import { shellStatements } from '../../src/demo/kubelet/runtime';
import type { ContainerSpec } from '../../src/demo/kubelet/probes';
import { cutToBytes, formatEntry, parseLogOptions, rfc3339Nano, selectEntries } from '../../src/demo/server/logslice';
import { ApiError } from '../../src/demo/server/status';
import { kubeletStore, WALL } from './kubelet-helpers';

/** The lines a container writes in its first `ms` simulated milliseconds: [ms, stream, text]. */
function written(c: Partial<ContainerSpec>, ms: number): [number, string, string][] {
  let now = WALL;
  const log = new ContainerLog('id', planOutput({ name: 'c', ...c }, { hostIP: '10.0.0.1', podName: 'pod-a' }), WALL, 1, () => now);
  now = WALL + ms;
  return log.read().entries.map((e) => [e.wallMs - WALL, e.stream, e.text]);
}

const sh = (script: string): Partial<ContainerSpec> => ({ image: 'busybox', command: ['sh', '-c', script] });

describe('what a container writes (planOutput)', () => {
  it('a script echoes and printfs at their time; redirections and other commands print nothing', () => {
    const out = written(
      sh('echo "hello   world"; sleep 2; printf "%s=%d\\n" a 1 b 2; echo into > /tmp/f; echo oops >&2; touch /tmp/x; echo $HOSTNAME $GREETING'),
      5000,
    );
    assert.deepEqual(out, [
      [0, 'stdout', 'hello   world'],
      [2000, 'stdout', 'a=1'],
      [2000, 'stdout', 'b=2'],
      [2000, 'stderr', 'oops'],
      [2000, 'stdout', 'pod-a '],
    ]);
    assert.deepEqual(written({ ...sh('echo $GREETING; exit 1; echo never'), env: [{ name: 'GREETING', value: 'hi' }] }, 5000), [[0, 'stdout', 'hi']]);
    assert.deepEqual(written({ image: 'busybox', command: ['sleep', '3600'] }, 5000), []);
  });

  it('lines come only once their time has come', () => {
    assert.deepEqual(written(sh('echo one; sleep 10; echo two'), 9999), [[0, 'stdout', 'one']]);
  });

  it("a `while true` loop repeats its body every sum of its sleeps, with the docs' counter", () => {
    const out = written(sh('i=0; while true; do echo "$i: $(date)"; i=$((i+1)); sleep 1; done'), 2500);
    assert.deepEqual(
      out.map(([t, , text]) => [t, text]),
      [0, 1000, 2000].map((t, i) => [t, `${i}: ${dateCommand(WALL + t)}`]),
    );
    assert.equal(dateCommand(Date.parse('2026-12-02T03:05:09Z')), 'Wed Dec  2 03:05:09 UTC 2026');
  });

  it('agnhost netexec logs its servers as Go log lines, and the HTTP probe requests to its port', () => {
    const netexec: Partial<ContainerSpec> = {
      image: 'registry.k8s.io/e2e-test-images/agnhost:2.47',
      args: ['netexec', '--http-port=8080'],
      readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 },
      livenessProbe: { httpGet: { path: '/healthz', port: 8081 }, periodSeconds: 5 },
    };
    const d = logDate(WALL);
    assert.deepEqual(
      written(netexec, 6000).map(([t, , text]) => [t, text]),
      [
        [0, `${d} Started HTTP server on port 8080`],
        [0, `${d} Started UDP server on port  8081`],
        [0, `${d} GET /healthz`],
        [5000, `${logDate(WALL + 5000)} GET /healthz`],
      ],
    );
    assert.deepEqual(
      written({ args: ['netexec', '--http-port', '9000', '--udp-port=-1'] }, 1000).map(([, , t]) => t),
      [`${d} Started HTTP server on port 9000`],
    );
  });

  it("nginx prints its entry point's lines and start-up notices; a probe of / is an access-log line", () => {
    const out = written({ image: 'nginx:1.27.3', readinessProbe: { httpGet: { path: '/', port: 80 } } }, 1000);
    assert.equal(out[0]![2], '/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration');
    assert.ok(out.some(([, s, t]) => s === 'stdout' && t === '/docker-entrypoint.sh: Configuration complete; ready for start up'));
    assert.ok(out.some(([, s, t]) => s === 'stderr' && t.endsWith('[notice] 1#1: nginx/1.27.3')));
    assert.match(out.at(-1)![2], /^10\.0\.0\.1 - - \[01\/Mar\/2026:10:00:00 \+0000\] "GET \/ HTTP\/1\.1" 200 615 "-" "kube-probe\/1\.34" "-"$/);
    assert.deepEqual(written({ image: 'nginx', command: ['sh', '-c', 'sleep 10'] }, 1000), [], 'another command: no entry point');
  });

  it('shell words are quote-aware', () => {
    assert.deepEqual(shellStatements(`echo 'a; b' && echo "c \\"d\\""\nsleep 1`), [
      ['echo', 'a; b'],
      ['echo', 'c "d"'],
      ['sleep', '1'],
    ]);
  });
});

describe('a container log (ContainerLog, LogStore)', () => {
  it('is materialised lazily, ends at the instance end, and tells when its next line is due', () => {
    let now = WALL;
    const log = new ContainerLog('a', planOutput({ name: 'c', ...sh('echo 1; sleep 1; echo 2; sleep 1; echo 3') }), WALL, 1, () => now);
    assert.equal(log.read().entries.length, 1);
    assert.equal(log.untilNext(), 1000);
    const seen: number[] = [];
    log.subscribe(() => seen.push(now));
    now = WALL + 1500;
    const r = log.read();
    assert.deepEqual(
      r.entries.map((e) => e.text),
      ['1', '2'],
    );
    assert.deepEqual(log.read(r.next).entries, [], 'nothing after the cursor');
    log.end(WALL + 1600);
    now = WALL + 5000;
    assert.deepEqual(
      log.read().entries.map((e) => e.text),
      ['1', '2'],
      'a killed instance writes no more',
    );
    assert.equal(log.untilNext(), undefined);
    assert.equal(seen.length, 2, 'one notification for the new line, one for the end');
  });

  it('keeps at most MAX_LOG_LINES lines, and a series running for a year costs only those', () => {
    let now = WALL;
    const log = new ContainerLog('a', planOutput({ name: 'c', ...sh('while true; do echo tick; sleep 1; done') }), WALL, 1, () => now);
    now = WALL + 365 * 86_400_000;
    const started = performance.now();
    const { entries, next } = log.read();
    assert.equal(entries.length, MAX_LOG_LINES);
    assert.equal(entries.at(-1)!.wallMs, now);
    assert.ok(next >= MAX_LOG_LINES);
    assert.ok(performance.now() - started < 1000);
  });

  it('a restart starts a new log and keeps the previous one; forget ends them', () => {
    const store = new LogStore();
    const a = new ContainerLog('id-1', { lines: [], series: [] }, WALL, 1, () => WALL);
    const b = new ContainerLog('id-2', { lines: [], series: [] }, WALL, 1, () => WALL);
    store.start('uid', 'c', a);
    store.start('uid', 'c', b);
    assert.ok(a.ended);
    assert.equal(store.find('uid', 'c', 'id-1'), a);
    assert.equal(store.find('uid', 'c', 'id-2'), b);
    store.forget('uid');
    assert.ok(b.ended);
    assert.equal(store.find('uid', 'c', 'id-2'), undefined);
    assert.equal(store.size, 0);
  });
});

describe("the kubelet's reading options (logslice)", () => {
  const e = (s: number, text: string): LogEntry => ({ wallMs: WALL + s * 1000, stream: 'stdout', text });
  const entries = [e(0, 'a'), e(1, 'b'), e(2, 'c'), e(3, 'd')];

  it('tailLines first, then since', () => {
    assert.deepEqual(
      selectEntries(entries, { tailLines: 2 }).map((x) => x.text),
      ['c', 'd'],
    );
    assert.deepEqual(selectEntries(entries, { tailLines: 0 }), []);
    assert.deepEqual(
      selectEntries(entries, { since: WALL + 1000 }).map((x) => x.text),
      ['b', 'c', 'd'],
    );
    assert.deepEqual(
      selectEntries(entries, { tailLines: 3, since: WALL + 2000 }).map((x) => x.text),
      ['c', 'd'],
    );
  });

  it('timestamps are RFC3339Nano; limitBytes cuts bytes, mid-line too', () => {
    assert.equal(rfc3339Nano(Date.parse('2026-03-01T10:00:00Z')), '2026-03-01T10:00:00Z');
    assert.equal(rfc3339Nano(Date.parse('2026-03-01T10:00:00.120Z') + 0.25), '2026-03-01T10:00:00.12025Z');
    assert.equal(formatEntry(e(0, 'a'), true), '2026-03-01T10:00:00Z a\n');
    assert.equal(cutToBytes('hello\nworld\n', 8).toString(), 'hello\nwo');
    assert.equal(cutToBytes('é', 1).length, 1);
  });

  it('parses the query as the apiserver does, and rejects what it rejects', () => {
    const q = (s: string) => parseLogOptions(new URLSearchParams(s), 'p', WALL);
    assert.deepEqual(q('container=c&follow=true&previous=1&timestamps=true&tailLines=5&limitBytes=10&sinceSeconds=60'), {
      container: 'c',
      follow: true,
      previous: true,
      timestamps: true,
      tailLines: 5,
      limitBytes: 10,
      since: WALL - 60_000,
    });
    assert.equal(q('sinceTime=2026-03-01T09:00:00Z').since, WALL - 3_600_000);
    const code = (s: string) => {
      try {
        q(s);
        return 0;
      } catch (err) {
        return (err as ApiError).code;
      }
    };
    assert.equal(code('tailLines=-1'), 422);
    assert.equal(code('limitBytes=0'), 422);
    assert.equal(code('sinceSeconds=1&sinceTime=2026-03-01T09:00:00Z'), 422);
    assert.equal(code('tailLines=x'), 400);
    assert.equal(code('follow=maybe'), 400);
  });
});

describe('the kubelet simulation writes each container instance its log', () => {
  it('a liveness kill ends the instance log; the restart starts a new one and keeps the previous', async () => {
    const clock = new FakeClock();
    const store = kubeletStore(clock);
    const logs = new LogStore();
    const kubelet = startKubelet(store, { clock, wallStart: WALL, nodes: 1, logs });
    store.create('', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'probe-me', namespace: 'default' },
      spec: {
        containers: [
          {
            name: 'probe-me',
            image: 'registry.k8s.io/e2e-test-images/agnhost:2.47',
            args: ['netexec', '--http-port=8080'],
            livenessProbe: { httpGet: { path: '/healthz', port: 8081 }, periodSeconds: 5, failureThreshold: 2 },
          },
        ],
      },
    } as DemoObject);
    const status = () => (store.get('', 'pods', 'default', 'probe-me')!.status as any).containerStatuses?.[0];
    const uid = store.get('', 'pods', 'default', 'probe-me')!.metadata.uid!;
    await clock.advance(3000);
    const first = logs.find(uid, 'probe-me', status().containerID)!;
    assert.deepEqual(
      first.read().entries.map((x) => x.text.slice(20)),
      ['Started HTTP server on port 8080', 'Started UDP server on port  8081'],
    );
    while (!status()?.lastState?.terminated) await clock.advance(1000);
    assert.ok(first.ended, 'the kill ended the first log');
    while (!status()?.state?.running) await clock.advance(1000);
    const second = logs.find(uid, 'probe-me', status().containerID)!;
    assert.notEqual(second, first);
    assert.equal(logs.find(uid, 'probe-me', status().lastState.terminated.containerID), first);
    assert.equal(second.read().entries.length, 2);
    store.delete('', 'pods', 'default', 'probe-me');
    await clock.advance(0);
    assert.ok(second.ended, "the pod's deletion ends its logs");
    kubelet.stop();
    assert.equal(logs.size, 0);
  });

  it('a container adopted as running (its status written elsewhere) has the log its script wrote since its startedAt', async () => {
    const clock = new FakeClock();
    const store = kubeletStore(clock);
    const logs = new LogStore();
    const kubelet = startKubelet(store, { clock, wallStart: WALL, nodes: 1, logs });
    const startedAt = new Date(WALL - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    store.create('', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'old', namespace: 'default' },
      spec: { nodeName: 'demo-node-1', containers: [{ name: 'old', image: 'busybox', command: ['sh', '-c', 'echo a; sleep 30; echo b; sleep 3600'] }] },
      status: {
        phase: 'Running',
        podIP: '10.244.0.9',
        containerStatuses: [{ name: 'old', containerID: 'containerd://old', ready: true, started: true, restartCount: 0, state: { running: { startedAt } } }],
      },
    } as DemoObject);
    await clock.advance(0);
    const uid = store.get('', 'pods', 'default', 'old')!.metadata.uid!;
    assert.deepEqual(
      logs
        .find(uid, 'old', 'containerd://old')!
        .read()
        .entries.map((e) => [e.wallMs - WALL, e.text]),
      [
        [-60_000, 'a'],
        [-30_000, 'b'],
      ],
    );
    kubelet.stop();
  });
});
