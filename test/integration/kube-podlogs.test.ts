/**
 * Core's pod-log reader (core/kube/listwatch/podLog.ts, ownerLogs.ts) and `kubeloop logs` against
 * the demo cluster over real sockets: which container instance was read (current or previous of a
 * crash-looping container, by container ID and restart count), follow until the instance ends, a
 * 403 for a user without pods/log, an owner's pods interleaved by time and tagged, and the CLI as
 * a child process compared byte for byte with kubectl logs on the same pod.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { KubeClient } from '../../src/core/kube/client';
import { splitTimestamp } from '../../src/core/kube/listwatch/podLog';
import type { MergedLine } from '../../src/core/kube';
import type { DemoObject } from '../../src/demo/store';
import { eventually } from '../support/eventually';
import { showLogIn } from '../../src/app/logs/logView';
import { GENERATED_LOG_ANNOTATION } from '../../src/demo/kubelet/logs';
import { demoRightsServer } from './rightsServer';
import { startTestCluster, type TestCluster } from './demo-support';

const root = join(__dirname, '..', '..');

function shPod(name: string, script: string, restartPolicy = 'Always', containers?: object[]): DemoObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { restartPolicy, containers: containers ?? [{ name, image: 'busybox:1.36', command: ['sh', '-c', script] }] },
  };
}

function deployment(name: string, replicas: number, script: string): DemoObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', script] }] } },
    },
  };
}

/** All of a log's lines (core's reader, iterated to its end). */
async function readAll(client: KubeClient, pod: string, opts: Parameters<KubeClient['podLog']>[2], ns = 'default') {
  const open = await client.podLog(ns, pod, opts);
  if (!open.ok) return { failure: open.failure, lines: [] as string[] };
  const lines: string[] = [];
  for await (const l of open.log.lines) lines.push(l);
  return { instance: open.log.instance, end: open.log.end(), lines };
}

/** `kubeloop logs ARGS` as a child process: its exit code, stdout and stderr. */
function kubeloopLogs(kubeconfig: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts'), 'logs', '--kubeconfig', kubeconfig, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('pod logs through core and kubeloop logs', () => {
  let t: TestCluster;
  let client: KubeClient;
  before(async () => {
    t = await startTestCluster({ kubelet: true, kubeletSpeed: 10, controllers: true });
    client = await KubeClient.fromKubeconfig({ kubeconfig: t.kubeconfig });
    // Crash-looping: each instance prints its start time, then fails.
    t.cluster.store.create('', 'pods', shPod('crash', 'echo "run $(date)"; echo "exiting"; sleep 1; exit 1'));
    // Done: stdout and stderr, then it exits 0 (its log no longer changes).
    const finished = (pod: DemoObject): DemoObject => ({ ...pod, metadata: { ...pod.metadata, labels: { finished: 'yes' } } });
    t.cluster.store.create('', 'pods', finished(shPod('done2', 'echo two-a; sleep 1; echo two-b', 'Never')));
    t.cluster.store.create(
      '',
      'pods',
      finished(
        shPod('done', '', 'Never', [
          { name: 'main', image: 'busybox:1.36', command: ['sh', '-c', 'echo hello; printf "%s world\\n" big; echo oops >&2; echo last; sleep 1'] },
          { name: 'side', image: 'busybox:1.36', command: ['sh', '-c', 'echo side-1; sleep 2; echo side-2'] },
        ]),
      ),
    );
  });
  after(async () => {
    client?.close();
    await t.close();
  });

  const status = (name: string) => (t.cluster.store.get('', 'pods', 'default', name)?.status as any)?.containerStatuses?.[0];

  it('current and previous of a crash-looping container: each instance by container ID and restart count', async () => {
    await eventually(() => status('crash')?.restartCount >= 2, { description: 'crash restarted twice', timeoutMs: 30_000 });
    // Read both against one status: retried if the container restarted in between.
    const both = await eventually(
      async () => {
        const before = status('crash');
        const cur = await readAll(client, 'crash', {});
        const prev = await readAll(client, 'crash', { previous: true });
        const now = status('crash');
        return JSON.stringify(before) === JSON.stringify(now) ? { cur, prev, st: now } : undefined;
      },
      { description: 'two reads against one status', timeoutMs: 30_000 },
    );
    const { cur, prev, st } = both;
    assert.equal(prev.instance!.previous, true);
    assert.equal(prev.instance!.containerID, st.lastState.terminated.containerID);
    assert.equal(prev.instance!.restartCount, st.restartCount - 1);
    // Running, or waiting in CrashLoopBackOff (then the current read is the last terminated one, as the kubelet picks it).
    const curId = st.state.waiting ? st.lastState.terminated.containerID : st.containerID;
    assert.equal(cur.instance!.containerID, curId);
    assert.equal(prev.lines.length, 2);
    assert.match(prev.lines[0]!, /^run \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d UTC \d{4}$/);
    assert.equal(prev.end!.kind, 'ended');
    if (st.state.running) assert.notEqual(cur.lines[0], prev.lines[0], 'two instances, two start times');
  });

  it('previous of a container that never restarted: the apiserver 400 as a value', async () => {
    await eventually(() => status('done')?.state?.terminated, { description: 'done to finish', timeoutMs: 20_000 });
    const r = await readAll(client, 'done', { previous: true, container: 'main' });
    assert.deepEqual(r.failure, { reason: 'badRequest', status: 400, message: 'previous terminated container "main" in pod "done" not found' });
  });

  it('follow gets lines as they are written and ends when the instance ends', async () => {
    t.cluster.store.create('', 'pods', shPod('follow', 'echo first; sleep 30; echo second; sleep 30; echo third', 'Never'));
    await eventually(async () => (await t.kubectl(['logs', 'follow'])).stdout === 'first\n', { description: 'the first line', timeoutMs: 15_000 });
    const open = await client.podLog('default', 'follow', { follow: true });
    assert.ok(open.ok);
    const seen: string[] = [];
    for await (const line of open.log.lines) {
      seen.push(line);
      // The second line is written ~3 s after the first (ten times faster): it came over the open stream.
      if (seen.length === 1) assert.equal(status('follow').state.running !== undefined, true);
    }
    assert.deepEqual(seen, ['first', 'second', 'third']);
    assert.deepEqual(open.log.end(), { kind: 'ended', lines: 3, bytes: 'first\nsecond\nthird\n'.length });
    assert.ok(status('follow').state.terminated, 'the stream ended with the instance');
  });

  it('the signal ends a follow at once; the iteration ends with "aborted"', async () => {
    t.cluster.store.create('', 'pods', shPod('forever', 'while true; do echo tick; sleep 600; done'));
    await eventually(async () => (await t.kubectl(['logs', 'forever'])).stdout === 'tick\n', { description: 'the first tick', timeoutMs: 15_000 });
    const stop = new AbortController();
    const open = await client.podLog('default', 'forever', { follow: true }, stop.signal);
    assert.ok(open.ok);
    const seen: string[] = [];
    for await (const line of open.log.lines) {
      seen.push(line);
      stop.abort(new Error('enough'));
    }
    assert.deepEqual(seen, ['tick']);
    const end = open.log.end();
    assert.equal(end.kind, 'failed');
    assert.equal(end.kind === 'failed' && end.failure.reason, 'aborted');
  });

  it("an owner's pods interleaved by time, each line tagged with its pod and container; new pods join a follow", async () => {
    t.cluster.store.create('apps', 'deployments', deployment('ticker', 2, 'i=0; while true; do echo "tick $HOSTNAME $i"; i=$((i+1)); sleep 3; done'));
    const podsOf = () => t.cluster.store.list('', 'pods').items.filter((p) => p.metadata.name.startsWith('ticker-') && (p.status as any)?.phase === 'Running');
    await eventually(() => podsOf().length === 2, { description: 'two ticker pods running', timeoutMs: 20_000 });
    // Some ticks from each (3 s simulated apart: 0.3 s).
    await eventually(async () => (await t.kubectl(['logs', podsOf()[1]!.metadata.name])).stdout.split('\n').length > 4, {
      description: 'ticks written',
      timeoutMs: 15_000,
    });
    const lines: MergedLine[] = [];
    const end = await client.ownerLogs('default', { kind: 'deployment', name: 'ticker' }, {}, { onLine: (l) => void lines.push(l) });
    assert.deepEqual(end, { kind: 'ended', sources: 2 });
    const names = podsOf().map((p) => p.metadata.name);
    assert.deepEqual([...new Set(lines.map((l) => l.source))].sort(), names.map((n) => `pod/${n}/main`).sort());
    for (const l of lines) assert.match(l.text, new RegExp(`^tick ${l.source.split('/')[1]} \\d+$`), 'each line tagged with the pod that wrote it');
    const times = lines.map((l) => splitTimestamp(`${l.time} x`));
    for (let i = 1; i < times.length; i++) {
      const a = times[i - 1]!;
      const b = times[i]!;
      assert.ok(
        a.sortKey! < b.sortKey! || (a.sortKey === b.sortKey && a.fraction! <= b.fraction!),
        `in time order at ${i}: ${lines[i - 1]!.time} then ${lines[i]!.time}`,
      );
    }
    // Both pods' lines alternate (they tick together): not one log after the other.
    assert.ok(lines.findIndex((l) => l.source !== lines[0]!.source) < lines.length / 2);

    // Followed: a third pod (scale up) joins.
    const stop = new AbortController();
    const live: MergedLine[] = [];
    const following = client.ownerLogs(
      'default',
      { kind: 'deployment', name: 'ticker' },
      { follow: true, tailLines: 1 },
      { onLine: (l) => void live.push(l) },
      stop.signal,
    );
    try {
      await eventually(() => new Set(live.map((l) => l.source)).size === 2, { description: 'both pods followed', timeoutMs: 15_000 });
      const d = t.cluster.store.get('apps', 'deployments', 'default', 'ticker')!;
      t.cluster.store.update('apps', 'deployments', { ...d, spec: { ...(d.spec as object), replicas: 3 } });
      await eventually(() => new Set(live.map((l) => l.source)).size === 3, { description: 'the new pod joined', timeoutMs: 20_000 });
    } finally {
      stop.abort();
    }
    assert.deepEqual(await following, { kind: 'ended', sources: 3 });
  });

  it("the extension's log view: a header naming the instance, then a bounded window of the last lines", async () => {
    t.cluster.store.create('', 'pods', {
      ...shPod('gen', 'sleep 36000'),
      metadata: { name: 'gen', namespace: 'default', annotations: { [GENERATED_LOG_ANNOTATION]: '2000' } },
    });
    await eventually(() => status('gen')?.state?.running, { description: 'gen running', timeoutMs: 20_000 });
    let content = '';
    let most = 0;
    const stop = new AbortController();
    const sink = {
      append: (s: string) => (content += s),
      replace: (s: string) => (content = s),
    };
    const seen = () => {
      most = Math.max(most, content.split('\n').length);
      if (content.includes('line 0000000019')) stop.abort();
    };
    const watched = {
      append: (s: string) => (sink.append(s), seen()),
      replace: (s: string) => (sink.replace(s), seen()),
    };
    const end = await showLogIn(client, { kind: 'pod', namespace: 'default', name: 'gen' }, watched, stop.signal, { keep: 3, every: 5, flushLines: 2 });
    assert.match(end, /aborted|operation was aborted|^# /);
    const lines = content.split('\n');
    assert.equal(lines[0], `# pod/default/gen container gen: ${status('gen').containerID}, restart 0`);
    assert.equal(lines[1], '# 17 earlier lines not shown (the view keeps the last 3)');
    assert.deepEqual(
      lines.slice(2, 5).map((l) => l.slice(0, 15)),
      ['line 0000000017', 'line 0000000018', 'line 0000000019'],
    );
    assert.ok(most <= 2 + 3 + 5 + 1, `the view held ${most} lines at most`);
  });

  it('kubeloop logs prints what kubectl logs prints, flag for flag', { timeout: 120_000 }, async () => {
    const ended = (name: string) => (t.cluster.store.get('', 'pods', 'default', name)?.status as any)?.containerStatuses?.every((c: any) => c.state.terminated);
    await eventually(() => ended('done') && ended('done2'), {
      description: 'done and done2 to finish',
      timeoutMs: 20_000,
    });
    const flagSets = [
      ['done'],
      ['done', '-c', 'side'],
      ['done', '--tail', '2'],
      ['done', '--timestamps'],
      ['done', '--limit-bytes', '8'],
      ['done', '--prefix', '-c', 'main'],
      ['done', '--all-containers', '--prefix'],
      ['pod/done', '-f'],
      ['-l', 'finished=yes', '--prefix', '--all-containers'],
      ['-l', 'finished=yes', '--tail', '1', '--timestamps'],
    ];
    for (const flags of flagSets) {
      const ours = await kubeloopLogs(t.kubeconfig, flags);
      const theirs = await t.kubectl(['logs', ...flags]);
      assert.equal(ours.code, 0, `kubeloop logs ${flags.join(' ')}: ${ours.stderr}`);
      if (flags[0] === '-l') {
        // Several pods: kubectl reads them one after another, kubeloop interleaves; the same lines.
        assert.deepEqual(ours.stdout.split('\n').sort(), theirs.stdout.split('\n').sort(), flags.join(' '));
      } else if (flags.includes('--all-containers')) {
        // kubectl ranges over a Go map of containers (pkg/cmd/logs sequentialConsumeRequest), so its
        // container order varies from run to run; each container's lines, in order, are the same.
        assert.deepEqual(byPrefix(ours.stdout), byPrefix(theirs.stdout), flags.join(' '));
      } else assert.equal(ours.stdout, theirs.stdout, flags.join(' '));
      if (flags.length === 1) assert.equal(ours.stderr, theirs.stderr, 'the default container said as kubectl says it');
    }
    const bad = await kubeloopLogs(t.kubeconfig, ['done', '-c', 'main', '--previous']);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, 'kubeloop logs: previous terminated container "main" in pod "done" not found\n');
  });
});

/** `[pod/P/C] line` lines grouped by their prefix, each group in its order, the groups sorted. */
function byPrefix(out: string): [string, string[]][] {
  const groups = new Map<string, string[]>();
  for (const line of out.split('\n')) {
    const prefix = /^\[[^\]]*\]/.exec(line)?.[0] ?? '';
    groups.set(prefix, [...(groups.get(prefix) ?? []), line]);
  }
  return [...groups].sort(([a], [b]) => a.localeCompare(b));
}

describe("pod logs with the user's rights", () => {
  it('a user without pods/log is told so (403 as a value); the admin reads the same log', { timeout: 120_000 }, async () => {
    const s = await demoRightsServer({ objects: 0, kubelet: true });
    try {
      await s.runPod('team-a', 'app');
      const admin = await KubeClient.fromKubeconfig({ kubeconfig: await s.kubeconfig() });
      const erin = await KubeClient.fromKubeconfig({ kubeconfig: await s.kubeconfig('erin') });
      try {
        await eventually(async () => (await readAll(admin, 'app', {}, 'team-a')).lines.length > 0, {
          description: "the admin reads app's log",
          timeoutMs: 20_000,
        });
        const r = await readAll(erin, 'app', {}, 'team-a');
        assert.equal(r.failure?.reason, 'forbidden');
        assert.equal(r.failure?.message, 'forbidden: you may not read pods/log in team-a');
        assert.match(r.failure!.detail!, /User "erin" cannot get resource "pods\/log" in API group "" in the namespace "team-a"/);
        const cli = await kubeloopLogs(await s.kubeconfig('erin'), ['app', '-n', 'team-a']);
        assert.equal(cli.code, 1);
        assert.match(cli.stderr, /^kubeloop logs: forbidden: you may not read pods\/log in team-a \(pods "app" is forbidden/);
        assert.equal(cli.stdout, '');
      } finally {
        admin.close();
        erin.close();
      }
    } finally {
      await s.stop();
    }
  });
});
