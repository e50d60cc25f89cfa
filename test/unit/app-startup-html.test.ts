// The Show Start-up page: no script and a CSP that loads nothing and runs nothing, every cluster
// string escaped, and one bar per phase sized against the group's slowest pod.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startupHtml } from '../../src/app/startup/html';
import { startupReport } from '../../src/core/startup/report';

const at = (s: number) => new Date(Date.parse('2026-12-07T10:00:00Z') + s * 1000).toISOString();

function pod(name: string, ready: number) {
  return {
    metadata: {
      name,
      namespace: 'shop',
      uid: `u-${name}`,
      creationTimestamp: at(0),
      labels: { 'pod-template-hash': 'abc' },
      ownerReferences: [{ kind: 'ReplicaSet', name: 'web-abc', controller: true }],
    },
    spec: { nodeName: 'n1', containers: [{ name: 'c' }] },
    status: {
      conditions: [
        { type: 'PodScheduled', status: 'True', lastTransitionTime: at(1) },
        { type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: at(2) },
        { type: 'Ready', status: 'True', lastTransitionTime: at(ready) },
      ],
      containerStatuses: [{ name: 'c', state: { running: { startedAt: at(ready - 1) } } }],
    },
  };
}

function pulled(p: ReturnType<typeof pod>, t: number, message: string) {
  return {
    metadata: { name: `${p.metadata.name}.1`, namespace: 'shop' },
    involvedObject: { kind: 'Pod', name: p.metadata.name, namespace: 'shop', uid: p.metadata.uid, fieldPath: 'spec.containers{c}' },
    reason: 'Pulled',
    message,
    firstTimestamp: at(t),
    lastTimestamp: at(t),
  };
}

describe('Show Start-up page', () => {
  const evil = pod('<img src=x onerror=alert(1)>', 20);
  const fast = pod('fast', 10);
  const groups = startupReport(
    [evil, fast],
    [
      pulled(evil, 18, 'Successfully pulled image "<script>x</script>" in 16s (16s including waiting)'),
      pulled(fast, 8, 'Container image "a" already present on machine'),
    ],
  );
  const html = startupHtml({
    nonce: 'bm9uY2U=',
    title: 'Start-up: deployment/web',
    read: { groups, warnings: ['listing events: forbidden: <b>no</b>'], from: 'https://x' },
  });

  it('runs nothing and loads nothing', () => {
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;nonce-bm9uY2U=&#39;">/);
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, / style="/);
    assert.throws(() => startupHtml({ nonce: 'a" onload="x', title: 't', read: { error: 'e' } }));
  });

  it('escapes every cluster string', () => {
    assert.doesNotMatch(html, /<img/);
    assert.doesNotMatch(html, /<b>no<\/b>/);
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
    assert.match(html, /forbidden: &lt;b&gt;no&lt;\/b&gt;/);
  });

  it('draws one bar per phase, the slowest pod first, widths against it', () => {
    const rows = [...html.matchAll(/<div class="row" data-pod="([^"]*)">.*?<span class="bar">(.*?)<\/span><span>/g)];
    assert.deepEqual(
      rows.map((r) => r[1]),
      ['&lt;img src=x onerror=alert(1)&gt;', 'fast'],
    );
    const widths = (row: string) => [...row.matchAll(/class="(\w+) w(\d+)"/g)].map((m) => `${m[1]}:${m[2]}`);
    // 20 s: scheduling 1, sandbox 1, pull 16, start 1, readiness 1.
    assert.deepEqual(widths(rows[0]![2]!), ['scheduling:5', 'sandbox:5', 'imagePull:80', 'start:5', 'readiness:5']);
    assert.deepEqual(widths(rows[1]![2]!), ['scheduling:5', 'sandbox:5', 'imagePull:30', 'start:5', 'readiness:5']);
    assert.match(html, /Event Pulled shop\/&lt;img src=x onerror=alert\(1\)&gt;\.1 firstTimestamp/);
  });

  it('says what went wrong instead of a report', () => {
    assert.match(
      startupHtml({ nonce: 'bg==', title: 't', read: { error: 'listing pods: forbidden: <x>' } }),
      /<p class="warn">listing pods: forbidden: &lt;x&gt;<\/p>/,
    );
  });
});
