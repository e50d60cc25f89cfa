/**
 * The facts in facts.ts, checked against the real kube-apiserver: each is a place where the demo
 * cluster used to answer differently, and test/integration/demo-realserver.test.ts holds the demo
 * to the same checks. If a Kubernetes upgrade changes one of these answers, this file says so.
 */
import { after, before, describe, it } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { FACTS, prepareFacts, type FactTarget } from './facts';
import { Api, createCrd } from './support';

describe('what the real kube-apiserver answers (the facts the demo cluster is held to)', () => {
  let cp: ControlPlane;
  let api: Api;
  let target: FactTarget;

  before(async () => {
    cp = await startControlPlane();
    api = Api.admin(cp);
    target = {
      request: (method, path, body, headers) => api.request(method, path, body, headers),
      createCrd: (group, kind, plural) => createCrd(api, { group, kind, plural, scope: 'Namespaced' }),
    };
    await prepareFacts(target, 'facts');
  });
  after(async () => {
    api?.close();
    await cp?.stop();
  });

  for (const f of FACTS) it(f.name, () => f.run(target, 'facts'));
});
