/**
 * Where the sync loop watches under limited rights (src/core/syncloop/sources/watchscope.ts): the
 * loader's review asked for list AND watch, planned per type: across all namespaces (keeping the
 * context namespace to narrow to on a 403), in the context namespace, or forbidden.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import type { ResourceAttributes, ResourceRule } from '../../src/core/kube';
import type { AccessFacts } from '../../src/core/kube/access/review';
import { planWatchScopes, reviewWatchAccess } from '../../src/core/syncloop/sources/watchscope';

const rule = (verbs: string[], apiGroups: string[], resources: string[]): ResourceRule => ({ verbs, apiGroups, resources, resourceNames: [] });
const rulesIn = (namespace: string, resourceRules: ResourceRule[], incomplete = false) => ({ namespace, resourceRules, incomplete, evaluationError: '' });
const PODS = { group: '', version: 'v1', resource: 'pods' };
const EVENTS = { group: '', version: 'v1', resource: 'events' };
const NODES = { group: '', version: 'v1', resource: 'nodes', namespaced: false };
const PROBE = 'kubeloop-cluster-rules-probe-0';

describe('planWatchScopes', () => {
  const facts = (f: Partial<AccessFacts>): AccessFacts => ({ rules: [], reviewErrors: [], verbs: ['list', 'watch'], ...f });

  it('everything allowed (the SSARs): every type across, namespaced ones narrowing to the context namespace on a 403', () => {
    assert.deepEqual(planWatchScopes([PODS, NODES], 'team-a', facts({ listEverything: true })), [{ narrowTo: 'team-a' }, {}]);
  });

  it('a Role in team-a: namespaced types in team-a, a cluster-scoped one forbidden', () => {
    const read = [rule(['get', 'list', 'watch'], ['*'], ['*'])];
    const p = planWatchScopes([PODS, EVENTS, NODES], 'team-a', facts({ rules: [rulesIn('team-a', read)], clusterRules: rulesIn(PROBE, []) }));
    assert.deepEqual(p.slice(0, 2), [{ namespace: 'team-a' }, { namespace: 'team-a' }]);
    assert.match(p[2]!.forbidden ?? '', /^nodes is forbidden: the user may not list and watch nodes at the cluster scope/);
  });

  it('list without watch is not enough: forbidden, as a reflector needs both', () => {
    const p = planWatchScopes([PODS], 'team-a', facts({ rules: [rulesIn('team-a', [rule(['get', 'list'], ['*'], ['*'])])], clusterRules: rulesIn(PROBE, []) }));
    assert.match(p[0]!.forbidden ?? '', /pods is forbidden: the user may not list and watch pods across all namespaces, nor in the namespace "team-a"/);
  });

  it('a cluster-wide grant for pods only: pods across; Events denied in the context namespace too: forbidden', () => {
    const pods = [rule(['list', 'watch'], [''], ['pods'])];
    const p = planWatchScopes([PODS, EVENTS], undefined, facts({ rules: [rulesIn('default', pods)], clusterRules: rulesIn(PROBE, pods) }));
    assert.deepEqual(p[0], { narrowTo: 'default' });
    assert.match(p[1]!.forbidden ?? '', /nor in the namespace "default"/);
  });

  it('no review, or rules the authorizer could not complete: across, narrowing to the context namespace (default "default")', () => {
    assert.deepEqual(planWatchScopes([PODS, NODES], undefined, undefined), [{ narrowTo: 'default' }, {}]);
    const p = planWatchScopes([PODS], 'team-a', facts({ rules: [rulesIn('team-a', [], true)], clusterRules: rulesIn(PROBE, [], true) }));
    assert.deepEqual(p, [{ narrowTo: 'team-a' }]);
  });
});

describe('reviewWatchAccess', () => {
  it('asks one SSAR per verb (list and watch) at the cluster scope, then rules reviews in the context namespace and the probe', async () => {
    const asked: string[] = [];
    const reviewer = {
      accessReview: async (a: ResourceAttributes) => {
        asked.push(`ssar ${a.verb} ${a.group}/${a.resource}@${a.namespace ?? ''}`);
        return { allowed: a.verb === 'list', denied: false, reason: '' };
      },
      rulesReview: async (ns: string) => {
        asked.push(`rules ${ns}`);
        return rulesIn(ns, ns === 'team-a' ? [rule(['list'], ['*'], ['*'])] : []);
      },
    };
    const f = await reviewWatchAccess(reviewer, 'team-a', new AbortController().signal, new FakeClock());
    assert.deepEqual(asked.sort(), ['rules kubeloop-cluster-rules-probe-0', 'rules team-a', 'ssar list */*@', 'ssar watch */*@']);
    assert.equal(f.listEverything, false, 'list alone is not list+watch');
    assert.match(planWatchScopes([PODS], 'team-a', f)[0]!.forbidden ?? '', /may not list and watch pods/);
  });
});
