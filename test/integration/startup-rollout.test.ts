/**
 * Where a rollout's start-up time went, end to end over real sockets: a 100-pod Deployment on the
 * demo cluster (its controllers and kubelet, pulls that take time, queue per node and now and then
 * fail, and nodes that fill up until a node is added) is recorded by `kubeloop sync --record` while it rolls out. Within 1 s of the rollout
 * settling, the report read from the cluster (one list of pods, one of Events) has every phase of at
 * least 95 % of the pods, each bound naming the status field or Event it was read from; `kubeloop
 * startup` run as a child process prints the same, as text and as JSON; and `kubeloop startup
 * --recording` reads the same phases from the recording.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KubeClient } from '../../src/core/kube/client';
import { readStartupLive } from '../../src/app/startup/readStartup';
import type { StartupGroup } from '../../src/core/startup/report';
import { boundsOf, deploymentOf, kubeloop, pullsOf, rolloutGroup, rolloutSettled, startRecorder } from '../support/startupRollout';
import { api, startTestCluster, type TestCluster } from './demo-support';

const never = new AbortController().signal;
const NS = 'rollout';
const REPLICAS = 100;

/** Every bound of a pod is read from a status field, the creation time or a named Event, or says it is unknown. */
const SOURCE =
  /^(status\.(conditions\[\w+\]\.lastTransitionTime|containerStatuses\[[\w-]+\]\.state\.(running|terminated)\.startedAt)|metadata\.creationTimestamp|Event \w+ [\w-]+\/[\w.-]+ (firstTimestamp|lastTimestamp|eventTime))$/;

/** Per pod: its phases' durations (what two reads of the same state must agree on). */
function phasesByPod(groups: StartupGroup[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const g of groups) for (const p of g.pods) m.set(p.name, p.phases.map((ph) => `${ph.name}=${ph.ms ?? '?'}`).join(' '));
  return m;
}

describe('kubeloop startup: a 100-pod rollout on the demo cluster', () => {
  let tc: TestCluster;
  let recorder: Awaited<ReturnType<typeof startRecorder>>;
  const recording = () => join(tc.dir, 'rollout.klr');

  before(async () => {
    tc = await startTestCluster({
      kubelet: true,
      controllers: true,
      // Pulls of 0.4 s, one at a time per node, and about 15 % of pods' first pull failing (a 10 s back-off).
      // Which pulls fail hangs on the pods' names, random as a ReplicaSet's are: at 3 % no pod of 100
      // failed in about one run of 20 (0.97^100); at 15 % that is about one in 10 million.
      // 3 nodes of 32 pods: the last 4 pods are Unschedulable until a fourth node is added 2 s later.
      imagePulls: { defaultSeconds: 0.4, failRate: 0.15, seed: 7 },
      capacity: { podsPerNode: 32, addNodeAfterMs: 2000 },
    });
    await api(tc.cluster, '/api/v1/namespaces', { method: 'POST', json: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } });
    recorder = await startRecorder(tc.kubeconfig, NS, recording());
  });

  after(async () => {
    recorder?.kill();
    await tc?.close();
  });

  it('has the phases of >= 95 % of the pods within 1 s of settling, each bound traceable; the CLI and the recording agree', async (t) => {
    const deployment = deploymentOf(NS, 'shop', REPLICAS, {
      image: 'shop:2',
      ports: [{ containerPort: 80 }],
      readinessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 1 },
    });
    const created = await api(tc.cluster, `/apis/apps/v1/namespaces/${NS}/deployments`, { method: 'POST', json: deployment });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await rolloutSettled(async () => (await api(tc.cluster, `/apis/apps/v1/namespaces/${NS}/deployments/shop`)).body, REPLICAS, 150_000);
    const settled = performance.now();
    const client = await KubeClient.fromKubeconfig({ kubeconfig: tc.kubeconfig });
    const live = await readStartupLive(client, { namespace: NS, target: { kind: 'deployment', name: 'shop' } }, never);
    const elapsed = performance.now() - settled;
    const g = rolloutGroup(live, elapsed, REPLICAS);
    t.diagnostic(`report read ${elapsed.toFixed(0)} ms after settling; ${g.complete} of ${REPLICAS} pods with every phase`);
    assert.ok(g.complete >= 95, `${g.complete} of ${REPLICAS} pods with every phase`);
    for (const p of g.pods) {
      for (const b of boundsOf(p)) {
        if (b.how === 'unknown') continue;
        assert.match(b.source, SOURCE, `${p.name} ${b.name}`);
        assert.ok(b.at !== undefined);
      }
    }
    // The pulls are the demo's, as the kubelet words them, and the failed first pulls show as retries.
    const pulls = pullsOf(g);
    assert.ok(
      pulls.some((x) => x.pulled && x.pullMs === 400 && (x.withWaitingMs ?? 0) > 400),
      'a pull that waited for the node',
    );
    assert.ok(
      g.pods.some((p) => p.phases.find((ph) => ph.name === 'imagePull')!.retries.some((r) => r.message === 'Error: ErrImagePull')),
      'a failed pull',
    );
    const waited = g.pods.filter((p) => p.phases[0]!.retries.some((r) => r.reason === 'FailedScheduling'));
    assert.equal(waited.length, 4, 'FailedScheduling until the fourth node came');
    for (const p of waited) assert.equal(p.sli.excluded, 'unschedulable');
    assert.ok(g.pods.filter((p) => p.sli.ms !== undefined).length >= 90, 'the kubelet SLI beside ours');
    for (let i = 1; i < g.pods.length; i++) assert.ok((g.pods[i - 1]!.totalMs ?? -1) >= (g.pods[i]!.totalMs ?? -1), 'slowest first');

    // kubeloop startup as a child process: the same pods, the same phases.
    const json = await kubeloop(['startup', 'deployment/shop', '--namespace', NS, '--kubeconfig', tc.kubeconfig, '--json']).done;
    assert.equal(json.code, 0, json.err);
    const fromCli = JSON.parse(json.out) as { groups: StartupGroup[] };
    assert.deepEqual(phasesByPod(fromCli.groups), phasesByPod([g]));
    const text = await kubeloop(['startup', 'deployment/shop', '-n', NS, '--kubeconfig', tc.kubeconfig]).done;
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, new RegExp(`^deployment/shop \\(replicaset/shop-[a-z0-9]+\\) in ${NS}: 100 pods, \\d+ with every phase known$`, 'm'));
    assert.match(text.out, /^ {2}POD\s+TOTAL\s+SCHEDULING\s+SANDBOX\s+IMAGE PULL\s+START\s+READY\s+KUBELET SLI$/m);
    assert.match(text.out, /imagesPulled\s+\S+\s+Event Pulled rollout\/shop-\S+ firstTimestamp/);

    // From the recording: once the recorder has written what the cluster holds now, the same phases.
    await recorder.stop();
    const fromRec = await kubeloop(['startup', 'deployment/shop', '--recording', recording(), '--json']).done;
    assert.equal(fromRec.code, 0, fromRec.err);
    const recGroups = (JSON.parse(fromRec.out) as { groups: StartupGroup[] }).groups;
    assert.deepEqual(phasesByPod(recGroups), phasesByPod([g]));
  });
});
