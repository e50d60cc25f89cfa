/**
 * The loader with limited rights on the demo cluster, whose RBAC-style grants answer 403s and the
 * SelfSubject reviews as kube-apiserver's RBAC does (test/apiserver/rights.test.ts holds both to the
 * same answers, and runs these scenarios on the real server): test/support/rights/loader.ts.
 */
import { after, before, describe } from 'node:test';
import { loaderRightsScenarios } from '../support/rights/loader';
import type { RightsServer } from '../support/rights/server';
import { demoRightsServer } from './rightsServer';

describe('the loader with limited rights (demo cluster RBAC)', () => {
  let server: RightsServer;
  before(async () => {
    // 800 generated objects elsewhere: the team-a user's counts are exact among them.
    server = await demoRightsServer({ objects: 800, kubelet: false });
  });
  after(async () => {
    await server.stop();
  });
  loaderRightsScenarios(() => server);
});
