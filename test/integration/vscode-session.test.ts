// The window's Session owns what it is connected to: a load retargets the model once, and a switch
// of context while a load is still connecting (a credential plugin can take minutes) ends that load
// at once and never leaves the model on the old context. Against the demo cluster over TLS, with a
// real exec credential plugin (a node script this test writes) that waits until the test lets it go.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load as parseYaml } from 'js-yaml';
import { SharedLanes } from '../../src/core/pool/sharedLanes';
import { TimelineStore } from '../../src/core/timeline/store';
import { Connections } from '../../src/app/connection/connection';
import { Session } from '../../src/app/connection/session';
import { TargetState } from '../../src/app/connection/target';
import { WindowLoads } from '../../src/app/load/windowLoads';
import { createLogger } from '../../src/app/logger';
import { ResourceModel } from '../../src/app/model/resourceModel';
import { defaultSettings, type KubeLoopSettings } from '../../src/app/settings';
import { startDemoCluster, type DemoCluster } from '../../src/demo';
import { eventually } from '../support/eventually';

const TOKEN = 'tok-session-0123456789';

// Says it started, then waits for the gate file before it prints its credential (and says it is done).
const PLUGIN = `
const fs = require('fs');
const [dir, token] = process.argv.slice(2);
fs.writeFileSync(dir + '/started', '1');
const t = setInterval(() => {
  if (!fs.existsSync(dir + '/gate')) return;
  clearInterval(t);
  process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } }));
  fs.writeFileSync(dir + '/done', '1');
}, 20);
`;

const silent = createLogger({ trace() {}, debug() {}, info() {}, warn() {}, error() {} }, () => 'off');

describe('the Session: what the window is connected to', () => {
  let cluster: DemoCluster;
  let dir: string;
  let kubeconfig: string;

  before(async () => {
    cluster = await startDemoCluster({ token: TOKEN, kubelet: false, objects: 120, seed: 5 });
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-session-'));
    writeFileSync(join(dir, 'plugin.js'), PLUGIN);
    // two contexts of one cluster: "fast" with the token, "slow" with the gated plugin
    const kc = parseYaml(cluster.kubeconfig()) as {
      clusters: { name: string }[];
      users: { name: string; user: Record<string, unknown> }[];
      contexts: { name: string; context: { cluster: string; user: string } }[];
    };
    const clusterName = kc.clusters[0]!.name;
    kc.users = [
      { name: 'fast', user: { token: TOKEN } },
      {
        name: 'slow',
        user: {
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: process.execPath,
            args: [join(dir, 'plugin.js'), dir, TOKEN],
            interactiveMode: 'Never',
          },
        },
      },
    ];
    kc.contexts = ['fast', 'slow'].map((name) => ({ name, context: { cluster: clusterName, user: name } }));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, dump({ ...kc, 'current-context': 'fast' }), { mode: 0o600 });
  });

  after(async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A window: its settings (which context), target, session, model and loads. */
  const window = (context: string, namespaces: string[] = []) => {
    const settings: KubeLoopSettings = { ...defaultSettings(), kubeconfig, context, namespaces };
    const target = new TargetState(() => settings);
    const connections = new Connections(() => ({ requestTimeoutMs: 10_000 }));
    const model = new ResourceModel();
    const session = new Session(target, connections, model);
    const loads = new WindowLoads({ session, settings: () => settings, timeline: new TimelineStore(), log: silent, origin: 0, lanes: new SharedLanes(4) });
    const resets: (string | undefined)[] = [];
    model.onChange((c) => (c.kind === 'reset' ? resets.push(model.context) : undefined));
    const switchTo = (name: string) => {
      settings.context = name;
      target.check();
    };
    return { settings, session, model, loads, resets, switchTo, close: () => session.close() };
  };

  it('a load retargets the model once; a reload of the same context and scope empties nothing', async () => {
    const w = window('fast', ['default']);
    try {
      const first = await w.loads.load();
      assert.equal(first.kind, 'loaded');
      assert.deepEqual(w.resets, ['fast'], 'one reset, already naming the context it loads');
      assert.deepEqual([w.model.context, w.model.server, w.model.namespaceScope], ['fast', cluster.url, ['default']]);
      assert.ok(w.model.objectCount > 0);
      await w.loads.load();
      assert.deepEqual(w.resets, ['fast'], 'the reload kept the model');
    } finally {
      w.close();
    }
  });

  it('a switch of context while a load connects ends that load at once; the model never shows the old context', async () => {
    const w = window('slow');
    try {
      const stale = w.loads.load();
      await eventually(() => existsSync(join(dir, 'started')), { description: 'the slow context is logging in', timeoutMs: 20_000 });
      w.switchTo('fast');
      assert.equal(w.model.context, undefined, 'the switch emptied the model');
      // ended by the switch, without waiting for the plugin (which is still waiting for its gate)
      assert.deepEqual(await stale, { kind: 'dropped' });
      const fresh = await w.loads.load();
      assert.equal(fresh.kind, 'loaded');
      const objects = w.model.objectCount;
      assert.ok(objects > 0);
      // the old login completes now: nothing of it reaches the model
      writeFileSync(join(dir, 'gate'), '1');
      await eventually(() => existsSync(join(dir, 'done')), { description: 'the slow login completed', timeoutMs: 20_000 });
      assert.equal((await w.session.peek())?.context.name, 'fast', "the window's client is the new context's");
      assert.deepEqual([w.model.context, w.model.objectCount, w.resets], ['fast', objects, ['fast']]);
    } finally {
      w.close();
    }
  });

  it('a lease begun before a switch can neither retarget the model nor write into it', async () => {
    const w = window('fast');
    try {
      const before = w.session.begin();
      const conn = await before.connect();
      assert.equal(before.show(conn), true);
      w.switchTo('slow');
      assert.ok(before.signal.aborted, 'the switch aborted it');
      assert.equal(before.show(conn), false);
      before.into.rescope(['default']);
      assert.deepEqual([w.model.context, w.model.namespaceScope, w.resets], [undefined, [], ['fast', undefined]]);
      before.release();
    } finally {
      w.close();
    }
  });
});
