// A restart on the timeline leads to the last lines before it, in one click: in a real VS Code
// (code-server) driven in Chromium, on the demo cluster the extension starts. A pod's container
// prints the moment it started (date(1)), runs 45 s and fails; the kubelet simulation restarts it
// after its 10 s back-off. The sync loop's PLEG ContainerDied mark of the first instance is selected
// on the timeline, "Previous logs" clicked, and the output channel must show that instance's own
// start line: a line the running instance did not write (it started later).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { paletteTitle } from '../../src/app/commandIds';
import { LOADING_ICON } from '../../src/app/statusText';
import { dateCommand } from '../../src/demo/kubelet/output';
import { startVsCode, type Session } from './support/session';
import { UI_TIMEOUT_MS } from './support/workbench';
import { eventually } from '../support/eventually';

const POD = 'crasher';
const CONTAINER = 'app';
/** The container runs this long, then fails: long enough that the next death comes well after the click. */
const RUN_S = 45;

interface ContainerStatus {
  name: string;
  containerID?: string;
  restartCount: number;
  state?: { running?: { startedAt: string } };
  lastState?: { terminated?: { containerID?: string; startedAt?: string } };
}

/** The demo cluster's API server URL, from the kubeconfig the extension wrote into its global storage. */
function demoServer(s: Session): string {
  const path = join(s.userDataDir, 'User', 'globalStorage', 'kubeloop.kubeloop', 'demo', 'kubeconfig');
  const kc = load(readFileSync(path, 'utf8')) as { clusters: { cluster: { server: string } }[] };
  return kc.clusters[0]!.cluster.server;
}

async function containerStatus(server: string): Promise<ContainerStatus | undefined> {
  const res = await fetch(`${server}/api/v1/namespaces/default/pods/${POD}`);
  if (!res.ok) return undefined;
  const pod = (await res.json()) as { status?: { containerStatuses?: ContainerStatus[] } };
  return pod.status?.containerStatuses?.find((c) => c.name === CONTAINER);
}

/** A container ID without its runtime's scheme, as the PLEG and the log header name it. */
const bareId = (id: string) => id.replace(/^[a-z]+:\/\//, '');

describe("a restart mark on the timeline opens the previous instance's logs (code-server)", () => {
  let s: Session;

  before(async () => {
    s = await startVsCode({ name: 'restart-logs', env: { KUBELOOP_DEMO_OBJECTS: '200', KUBELOOP_DEMO_CHURN: '0' } });
    await s.step('workbench loaded', () => s.workbench.waitReady('KubeLoop'));
  });
  after(async () => {
    await s?.close();
  });

  it('"Previous logs" on a ContainerDied mark shows the last lines of the instance that died', async () => {
    await s.step('demo cluster started', async () => {
      await s.workbench.runCommand(paletteTitle('startDemoCluster'));
      await s.workbench.waitForNotification('demo cluster running');
    });
    const server = demoServer(s);
    await s.step('resources loaded', async () => {
      await s.workbench.runCommand(paletteTitle('loadClusterResources'));
      const item = s.page.locator('.part.statusbar [id*="kubeloop.status"]').first();
      await eventually(
        async () => ((await item.locator(`.codicon-${LOADING_ICON}`).count()) === 0 && /[\d,]+ objects/.test(await item.innerText()) ? true : undefined),
        { description: 'the load to finish (its object count in the status bar, no loading icon)', timeoutMs: 120_000 },
      );
    });
    await s.step('sync loop started', async () => {
      await s.workbench.runCommand(paletteTitle('startSyncLoop'));
      await eventually(async () => (/syncing/.test(await s.workbench.statusBarText('kubeloop.status')) ? true : undefined), {
        description: 'the status bar to say syncing',
        timeoutMs: 60_000,
      });
    });
    await s.step('a crash-looping pod created', async () => {
      const pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: POD, namespace: 'default' },
        spec: {
          restartPolicy: 'Always',
          containers: [{ name: CONTAINER, image: 'busybox:1.36', command: ['sh', '-c', `echo "instance started $(date)"; sleep ${RUN_S}; exit 1`] }],
        },
      };
      const res = await fetch(`${server}/api/v1/namespaces/default/pods`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(pod),
      });
      assert.ok(res.ok, `POST pod: ${res.status} ${await res.text()}`);
    });
    // The first instance died and the second runs: the first is the "previous" one until the second dies.
    const first = await s.step('the container restarted', () =>
      eventually(
        async () => {
          const c = await containerStatus(server);
          const died = c?.lastState?.terminated;
          return c && c.restartCount >= 1 && c.state?.running && died?.containerID && died.startedAt && c.containerID !== died.containerID
            ? { id: bareId(died.containerID), startedAt: died.startedAt, running: c.state.running.startedAt }
            : undefined;
        },
        { description: `pod ${POD} restarted once and running again`, timeoutMs: (RUN_S + 60) * 1000 },
      ),
    );
    const frame = await s.step('the restart mark selected on the timeline', async () => {
      await s.workbench.runCommand(paletteTitle('showTimeline'));
      const f = await s.workbench.webviewFrame('#timeline-root[data-ready="true"]');
      await f.locator('#timeline-filter').fill(POD);
      await f.locator('button', { hasText: 'List' }).click();
      // A mark that is no restart offers no logs.
      const started = f.locator('#timeline-events li', { hasText: `ContainerStarted default/${POD}` }).first();
      await started.click();
      await f.locator('#timeline-details h2', { hasText: `ContainerStarted · default/${POD}` }).waitFor();
      assert.equal(await f.locator('#timeline-previous-logs').isVisible(), false, 'no "Previous logs" on a ContainerStarted mark');
      await f
        .locator('#timeline-events li', { hasText: `ContainerDied default/${POD}` })
        .first()
        .click();
      await f.locator('#timeline-details h2', { hasText: `ContainerDied · default/${POD}` }).waitFor();
      return f;
    });
    assert.equal(await frame.locator('#timeline-details dt:text-is("Container") + dd').innerText(), first.id, "the mark is the first instance's death");
    assert.equal(await frame.locator('#timeline-details dt:text-is("Container name") + dd').innerText(), CONTAINER);

    const out = await s.step('"Previous logs" clicked: the output shows the instance that died', async () => {
      await frame.locator('#timeline-previous-logs').click();
      return eventually(
        async () => {
          const o = await s.workbench.outputChannel();
          return o.channel === `KubeLoop Logs: pod/default/${POD} [${CONTAINER}] (previous)` && /instance started/.test(o.text) ? o : undefined;
        },
        { description: "the previous instance's log in its output channel", timeoutMs: UI_TIMEOUT_MS },
      );
    });
    assert.match(out.text, new RegExp(`container ${CONTAINER} \\(previous instance\\):`), out.text);
    // the header names the instance read (the output wraps the long container ID: read without spaces)
    assert.ok(out.text.replace(/\s+/g, '').includes(first.id), `the header names ${first.id}: ${out.text}`);
    // Its own start line, which no later instance wrote (each prints the moment it started).
    const ownLine = `instance started ${dateCommand(Date.parse(first.startedAt))}`;
    const runningLine = `instance started ${dateCommand(Date.parse(first.running))}`;
    assert.notEqual(ownLine, runningLine);
    assert.ok(out.text.includes(ownLine), `"${ownLine}" in ${out.text}`);
    assert.ok(!out.text.includes(runningLine), `the running instance's "${runningLine}" is not in ${out.text}`);
    const csp = s.consoleErrors.filter((m) => /Content Security Policy|Refused to/i.test(m));
    assert.deepEqual(csp, [], 'no CSP violations');
  });
});
