/**
 * The sync loop with limited rights on the demo cluster (its RBAC-style grants and its kubelet):
 * test/support/rights/sync.ts, also run on a real kube-apiserver by test/apiserver/syncrights.test.ts.
 */
import { after, before, describe } from 'node:test';
import type { RightsServer } from '../support/rights/server';
import { syncRightsScenarios } from '../support/rights/sync';
import { demoRightsServer } from './rightsServer';

describe('the sync loop with limited rights (demo cluster RBAC)', () => {
  let server: RightsServer;
  before(async () => {
    server = await demoRightsServer({ objects: 0, kubelet: true });
  });
  after(async () => {
    await server.stop();
  });
  syncRightsScenarios(() => server);
});
