// A real kube-apiserver v1.36 + etcd 3.6 (lab/controlplane.ts) seeded with about
// `objects` objects of the built-in types in test/apiserver/objects.ts, for the bench sections that
// read a real server (bench/apiserver.ts, bench/remote.ts).
import { startControlPlane, type ControlPlane } from '../lab/controlplane';
import { NAMESPACED, seed } from '../test/apiserver/objects';
import { Api } from '../test/apiserver/support';

const NAMESPACES = 20;

export interface SeededServer {
  cp: ControlPlane;
  api: Api;
  created: number;
  createPerSecond: number;
  stop(): Promise<void>;
}

export async function startSeededControlPlane(objects: number): Promise<SeededServer> {
  const cp = await startControlPlane();
  const api = Api.admin(cp, 48);
  const stop = async () => {
    api.close();
    await cp.stop();
  };
  try {
    // Creating is the slow part on a real server (admission, etcd writes): many at once.
    const perNamespace = Math.max(1, Math.round(objects / (NAMESPACES * NAMESPACED.length)));
    const t0 = Date.now();
    const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `bench-${String(i).padStart(2, '0')}`);
    const created = await seed(api, { namespaces, perNamespace, cluster: 25, concurrency: 48 });
    const seconds = (Date.now() - t0) / 1000;
    const createPerSecond = Math.round(created.total / seconds);
    console.log(`created ${created.total.toLocaleString('en')} objects in ${seconds.toFixed(1)} s (${createPerSecond}/s)`);
    return { cp, api, created: created.total, createPerSecond, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
