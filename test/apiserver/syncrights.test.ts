/**
 * The sync loop with limited rights on a real kube-apiserver with RBAC (Roles and ClusterRoles made
 * from the same grants as the demo cluster's), pods run by a scripted kubelet:
 * test/support/rights/sync.ts, also run on the demo cluster by test/integration/syncloop-rights.test.ts.
 */
import { after, before, describe } from 'node:test';
import type { RightsServer } from '../support/rights/server';
import { syncRightsScenarios } from '../support/rights/sync';
import { realRightsServer } from './rightsServer';

describe('the sync loop with limited rights on a real kube-apiserver (RBAC)', () => {
  let server: RightsServer;
  before(async () => {
    server = await realRightsServer();
  });
  after(async () => {
    await server?.stop();
  });
  syncRightsScenarios(() => server);
});
