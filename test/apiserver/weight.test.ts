/**
 * Bytes per object: the demo cluster against a real control plane (issue 41). The same workload
 * (./weight-workload.ts) is created with kubectl's User-Agent on the lab (kube-apiserver with its
 * ServiceAccount admission, kube-controller-manager, kube-scheduler, real kubelets) and on the demo
 * cluster (its controllers and kubelet); once both are at rest, each kind's mean bytes per object
 * (compact JSON, as a list item) on the demo are within 15 % of the real ones.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Api } from '../../lab/api';
import { startLab, type Lab } from '../../lab/lab';
import { startDemoCluster, type DemoCluster } from '../../src/demo';
import { eventually } from '../support/eventually';
import { createWeightWorkload, REPLICAS, weigh, WEIGHED, WEIGHT_NS, type Weight } from './weight-workload';

type Obj = Record<string, any>;

/** The workload at rest: every pod of the Deployment available, the Job complete, its pod Succeeded. */
async function atRest(api: Api): Promise<boolean> {
  const d = await api.must('GET', `/apis/apps/v1/namespaces/${WEIGHT_NS}/deployments/web`);
  const j = await api.must('GET', `/apis/batch/v1/namespaces/${WEIGHT_NS}/jobs/report`);
  const pods = (await api.list(`/api/v1/namespaces/${WEIGHT_NS}/pods`)).items as Obj[];
  return (
    d.status?.availableReplicas === REPLICAS &&
    d.status?.updatedReplicas === REPLICAS &&
    (j.status?.conditions ?? []).some((c: Obj) => c.type === 'Complete' && c.status === 'True') &&
    pods.length === REPLICAS + 1 &&
    pods.every((p) => p.status?.phase === 'Succeeded' || (p.status?.conditions ?? []).some((c: Obj) => c.type === 'Ready' && c.status === 'True'))
  );
}

/** The kinds compared: every one weighed (the demo has no node Leases and no endpoints controllers: neither is weighed). */
const COMPARED = WEIGHED.map((w) => w.kind);

describe('demo objects weigh what a real control plane’s weigh', () => {
  let lab: Lab | undefined;
  let demo: DemoCluster | undefined;
  let real: Record<string, Weight>;
  let mine: Record<string, Weight>;

  before(async () => {
    lab = await startLab({ nodes: ['lab-1', 'lab-2'], controlPlane: { serviceAccountAdmission: true } });
    demo = await startDemoCluster({ objects: 0, controllers: true });
    const labApi = Api.admin(lab.cp);
    const demoApi = new Api(demo.url, undefined, undefined);
    try {
      // The ServiceAccount admission refuses pods until the controller manager made the namespace's default ServiceAccount: the controllers retry.
      await Promise.all([createWeightWorkload(labApi), createWeightWorkload(demoApi)]);
      await eventually(() => atRest(labApi), { description: 'the workload at rest on the lab', timeoutMs: 180_000, maxIntervalMs: 500 });
      await eventually(() => atRest(demoApi), { description: 'the workload at rest on the demo', timeoutMs: 180_000, maxIntervalMs: 500 });
      [real, mine] = await Promise.all([weigh(labApi), weigh(demoApi)]);
    } finally {
      labApi.close();
      demoApi.close();
    }
  });
  after(async () => {
    await demo?.stop();
    await lab?.stop();
  });

  for (const kind of COMPARED) {
    it(`${kind}: mean bytes per object within 15 % of kube-apiserver's`, (t) => {
      const r = real[kind]!;
      const m = mine[kind]!;
      t.diagnostic(
        `${kind}: real ${r.count} × ${Math.round(r.mean)} B, demo ${m.count} × ${Math.round(m.mean)} B (${(((m.mean - r.mean) / r.mean) * 100).toFixed(1)} %)`,
      );
      assert.ok(r.count > 0 && m.count > 0, `${kind} on both sides (real ${r.count}, demo ${m.count})`);
      assert.ok(Math.abs(m.mean - r.mean) <= 0.15 * r.mean, `${kind}: demo ${Math.round(m.mean)} B vs real ${Math.round(r.mean)} B`);
    });
  }
});
