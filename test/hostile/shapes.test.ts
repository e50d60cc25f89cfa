/**
 * Hostile shapes: what a server (or a tenant, through it) can make objects and documents look like.
 * Ten thousand discovery groups; a custom resource nested 4,000 levels deep (kube-apiserver takes
 * up to 10,000); 1 MB names; names and Status messages carrying terminal escapes (OSC 52 sets the
 * clipboard, CSI clears the screen, a lone CR rewrites a line, C1 CSI does the same in one byte).
 * `kubeloop load`, `kubeloop sync --record` and, for objects, the YAML view's renderer; runs.ts
 * holds every run to its bounds.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { renderObjectYaml } from '../../src/app/yaml/render';
import type { DemoCluster } from '../../src/demo';
import type { DemoObject } from '../../src/demo/store';
import { startCase } from './support/fixture';
import { manyGroups, statusError } from './support/peers';
import { assertLoadedBut, recordedState, runExport, runLoad, runSync } from './support/runs';
import { naming, onType } from './support/select';
import { writeFigures } from './support/figures';
import { eventually } from '../support/eventually';

/** The YAML view renders any object within this long (the extension host's one thread waits on it). */
const RENDER_WITHIN_MS = 2_000;
const HEALTHY = [
  { group: '', resource: 'pods' },
  { group: '', resource: 'services' },
];

after(() => console.log(writeFigures(__filename)));

/** A value nested `depth` levels, built without recursion. */
function nested(depth: number): Record<string, unknown> {
  let o: Record<string, unknown> = { leaf: 'bottom' };
  for (let i = 1; i < depth; i++) o = { d: o };
  return o;
}

function depthOf(v: unknown): number {
  let depth = 0;
  let level: unknown[] = [v];
  while (level.length) {
    depth++;
    level = level.flatMap((x) => (x && typeof x === 'object' ? Object.values(x) : [])).filter((x) => x && typeof x === 'object');
  }
  return depth - 1;
}

function render(obj: DemoObject, group: string, resource: string): { yaml: string; ms: number } {
  const started = performance.now();
  const yaml = renderObjectYaml(
    { context: 'hostile', group, version: 'v1', resource, namespace: obj.metadata.namespace, name: obj.metadata.name },
    obj as unknown as Record<string, unknown>,
    new Date(),
  );
  return { yaml, ms: performance.now() - started };
}

describe('hostile shapes', () => {
  it('10,000 discovery groups: kubeloop load and sync discover in time and memory, and load every real type whole', async () => {
    const c = await startCase({ misbehave: (demo) => (req, url) => (url.pathname === '/apis' ? manyGroups(demo.url, 10_000) : undefined) });
    try {
      const base = await c.baseline();
      const run = await runLoad('10,000 discovery groups', c, ['--json']);
      assert.equal(run.r.code, 0, run.r.err.slice(-1000));
      assertLoadedBut(run, base, {});
      // sync --watch resolves its types by discovery, through the same ten thousand groups
      await runSync('10,000 discovery groups', c, { watch: ['services'], healthy: HEALTHY });
    } finally {
      await c.stop();
    }
  });

  const DEEP = { group: 'hostile.test', version: 'v1', kind: 'Deep', plural: 'deeps', namespaced: true };
  const plantDeep = (demo: DemoCluster) => {
    demo.store.create('hostile.test', 'deeps', {
      apiVersion: 'hostile.test/v1',
      kind: 'Deep',
      metadata: { name: 'abyss', namespace: 'default', labels: { edit: '0' } },
      spec: nested(4_000),
    } as DemoObject);
  };

  it('a custom resource nested 4,000 levels: counted by a load that never reads its spec, rendered as YAML, synced and recorded cut with one warning through an edit', async () => {
    const c = await startCase({ crds: [DEEP], plant: plantDeep });
    try {
      const base = await c.baseline();
      const run = await runLoad('4,000-level custom resource', c, ['--json']);
      assert.equal(run.r.code, 0, run.r.err.slice(-1000));
      assertLoadedBut(run, base, {});
      // kubeloop load counts a custom resource from its metadata-only list (countsOnly): the deep spec
      // never reaches it, so nothing is cut and nothing named; the sync below reads it whole and cuts it.
      assert.doesNotMatch(run.r.err, naming('abyss', /deeper than \d+ levels/), 'the load read no spec to cut');

      const deep = c.demo.store.get('hostile.test', 'deeps', 'default', 'abyss')!;
      const { yaml, ms } = render(deep, 'hostile.test', 'deeps');
      assert.ok(ms <= RENDER_WITHIN_MS, `the YAML took ${Math.round(ms)} ms`);
      assert.match(yaml, /truncated/, 'the YAML says where the object was cut');

      await runSync('4,000-level custom resource', c, {
        watch: ['deeps.hostile.test', 'services'],
        error: naming('abyss', /deeper than \d+ levels/),
        healthy: [...HEALTHY, { group: 'hostile.test', resource: 'deeps' }],
        // its first edit is what overflowed the stack: the loop must hold it and the recorder record it
        then: async (recording) => {
          c.demo.store.update('hostile.test', 'deeps', { ...deep, metadata: { ...deep.metadata, labels: { edit: '1' } } });
          await eventually(
            async () => {
              const o = (await recordedState(recording)).get('deeps.hostile.test/default/abyss');
              return (o?.metadata as { labels?: Record<string, string> } | undefined)?.labels?.edit === '1' && o;
            },
            { description: 'the edit of the deep object in the recording', timeoutMs: 30_000, maxIntervalMs: 500 },
          ).then((o) => assert.ok(depthOf(o) <= 1_001, `recorded ${depthOf(o)} levels deep`));
        },
      });
    } finally {
      await c.stop();
    }
  });

  it('1 MB names: loaded, synced, recorded and rendered within bounds', async () => {
    const long = (tag: string) => `${tag}-${'n'.repeat(1024 * 1024)}`;
    const c = await startCase({
      plant: (demo) => {
        const pod = demo.store.list('', 'pods').items[0]!;
        for (const tag of ['a', 'b'])
          demo.store.create('', 'pods', { ...pod, metadata: { name: long(tag), namespace: 'default', labels: pod.metadata.labels } });
        demo.store.create('', 'configmaps', {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: long('cm'), namespace: 'default' },
          data: { k: 'v' },
        } as DemoObject);
      },
    });
    try {
      const base = await c.baseline();
      const run = await runLoad('1 MB names', c, ['--json']);
      assert.equal(run.r.code, 0, run.r.err.slice(-1000));
      assertLoadedBut(run, base, {});
      const cm = c.demo.store.get('', 'configmaps', 'default', long('cm'))!;
      const { yaml, ms } = render(cm, '', 'configmaps');
      assert.ok(ms <= RENDER_WITHIN_MS, `the YAML took ${Math.round(ms)} ms`);
      assert.ok(yaml.length < 4 * 1024 * 1024, `the YAML is ${yaml.length} characters`);
      await runSync('1 MB names', c, { watch: ['configmaps', 'services'], healthy: [...HEALTHY, { group: '', resource: 'configmaps' }] });
    } finally {
      await c.stop();
    }
  });

  // OSC 52 (set the clipboard), CSI 2J (clear the screen), a cursor move, a CR that rewrites the
  // line, BEL, and C1 CSI (U+009B), which some terminals obey as ESC [.
  const EVIL = 'evil\u001b]52;c;aG9zdGlsZQ==\u0007\u001b[2J\u001b[1;1H\rall clear\u009b31m';
  const plantEvil = (demo: DemoCluster) => {
    const pod = demo.store.list('', 'pods').items[0]!;
    demo.store.create('', 'pods', { ...pod, metadata: { name: `pod-${EVIL}`, namespace: 'default', labels: pod.metadata.labels } });
  };
  /** ESC as a reader sees it shown: ^[ (kubectl's way), or a JSON-style escape inside a quoted value. */
  const ESC = String.raw`(?:\^\[|\\u001b|\\x1b|\\e)`;
  const evilStatus = () => onType('', 'v1', 'configmaps', () => statusError(403, 'Forbidden', `configmaps is forbidden: ${EVIL}`));

  it('escapes in names and Status messages: kubeloop load and sync show them, never obey them, on a terminal', async () => {
    const c = await startCase({ plant: plantEvil, misbehave: evilStatus });
    try {
      const base = await c.baseline();
      // the table and the error lines as a user's terminal gets them, and the --json document
      const text = await runLoad('escapes in names and Status messages', c, []);
      assert.equal(text.r.code, 2, text.r.err.slice(-1000));
      assert.match(text.r.err, naming('configmaps', new RegExp(`${ESC}\\]52;c;aG9zdGlsZQ==`)), 'the Status message shown with its escapes visible');
      const json = await runLoad('escapes in names and Status messages', c, ['--json']);
      assertLoadedBut(json, base, { configmaps: /forbidden/ });
      // the sync's handler log names the pod; its reflector's error quotes the Status
      await runSync('escapes in names and Status messages', c, {
        watch: ['configmaps', 'services'],
        error: naming('configmaps', new RegExp(`${ESC}\\]52`)),
        healthy: HEALTHY,
        text: true,
      });
      const { recording } = await runSync('escapes in names and Status messages', c, {
        watch: ['configmaps', 'services'],
        error: naming('configmaps', /forbidden/),
        healthy: HEALTHY,
      });
      // the recording holds the pod's name as the server gave it; exported to a terminal, it is shown
      const exported = await runExport('escapes in names and Status messages', c, recording);
      assert.match(exported.out, new RegExp(`pod-evil${ESC}\\]52`), 'the recorded pod, its name shown');
      const { yaml } = render(c.demo.store.get('', 'pods', 'default', `pod-${EVIL}`)!, '', 'pods');
      assert.ok(!yaml.slice(yaml.indexOf('\n# Read-only')).includes('\u001b'), 'the YAML body holds no raw ESC');
    } finally {
      await c.stop();
    }
  });
});
