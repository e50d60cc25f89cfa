/**
 * The controller scenarios of test/apiserver/controller-scenarios.ts against the demo cluster with
 * its controllers and kubelet simulation on: what a client sees of Deployments, scaling, rolling
 * updates, Jobs, cascading deletes and the scheduler, as test/apiserver/controllers.test.ts sees
 * it from a real kube-controller-manager and kube-scheduler. docs/demo-cluster.md's "Differences from a real
 * cluster" lists what the demo does otherwise, with the reason.
 */
import { after, before, describe, it } from 'node:test';
import { CONTROLLER_SCENARIOS, prepareNamespace, type ControllerTarget } from '../apiserver/controller-scenarios';
import { fetchRequest } from '../apiserver/facts';
import { startTestCluster, type TestCluster } from './demo-support';

describe('workload controllers as a client sees them: the demo cluster', () => {
  let t: TestCluster;
  let target: ControllerTarget;

  before(async () => {
    t = await startTestCluster({ kubelet: true, controllers: true });
    const request = fetchRequest(() => t.cluster.url);
    const watch = async (path: string, signal: AbortSignal, onEvent: (type: string, object: any) => void): Promise<void> => {
      let r: Response;
      try {
        r = await fetch(`${t.cluster.url}${path}`, { headers: { Accept: 'application/json' }, signal });
      } catch (e) {
        if (signal.aborted) return;
        throw e;
      }
      if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
      const decoder = new TextDecoder();
      let buf = '';
      try {
        const reader = r.body!.getReader();
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
          buf += decoder.decode(chunk.value, { stream: true });
          for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
            const line = buf.slice(0, i).trim();
            buf = buf.slice(i + 1);
            if (!line) continue;
            const ev = JSON.parse(line) as { type: string; object: unknown };
            onEvent(ev.type, ev.object);
          }
        }
      } catch (e) {
        if (!signal.aborted) throw e;
      }
    };
    target = { request, watch, kubeconfig: t.kubeconfig };
  });
  after(() => t?.close());

  CONTROLLER_SCENARIOS.forEach((s, i) => {
    it(s.name, { skip: s.skip }, async () => {
      const ns = `ctl-${i}`;
      await prepareNamespace(target, ns);
      await s.run(target, ns);
    });
  });
});
