// Start Recording / Stop Recording without VS Code: the session the CLI records with, attached to a
// running loop (here a stand-in that hands the recorder what a loop's sources would), writes what
// the loop and the timeline saw, masks Secrets, detaches on stop and closes a file that opens; the
// status bar text and the proposed file name.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clockTime, defaultRecordingPath, LiveRecording, recordingsFolder, recordingStatusText } from '../../src/app/recording/liveRecording';
import { readSettings } from '../../src/app/settings';
import { Recording } from '../../src/core/recorder/reader';
import type { SyncObserver } from '../../src/core/syncloop/observer';
import { TimelineStore } from '../../src/core/timeline/store';

const never = new AbortController().signal;
const PODS = { group: '', resource: 'pods' };
const pod = (name: string, phase: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `u-${name}` }, status: { phase } });

describe('LiveRecording (Start/Stop Recording)', () => {
  it('records what the loop hands it and the timeline, masks Secret values, detaches and closes on stop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klr-live-'));
    try {
      const path = join(dir, 'r.klr');
      const observers: (SyncObserver | undefined)[] = [];
      const loop = { record: (o: SyncObserver | undefined) => void observers.push(o) };
      const timeline = new TimelineStore();
      const rec = await LiveRecording.start(
        { path, loop, context: 'ctx', server: 'https://user:pw@api.example:6443', timeline, maxMB: 64, maxHours: 2 },
        never,
      );
      assert.equal(observers.length, 1);
      const o = observers[0]!;
      assert.ok(o, 'the recorder is attached to the loop');
      o.replace('api', PODS, [pod('web-0', 'Pending')]);
      o.apply('api', PODS, 'MODIFIED', pod('web-0', 'Running'));
      o.apply('api:secrets', { group: '', resource: 'secrets' }, 'ADDED', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', namespace: 'default', uid: 'uid-s' },
        data: { password: Buffer.from('planted-secret-value').toString('base64') },
      });
      timeline.append({
        kind: 'iteration',
        t: 5,
        source: 'config',
        op: 'ADD',
        key: 'default/web-0',
        handler: 'HandlePodAdditions',
        durationMs: 1,
        outcome: 'ok',
      });
      await rec.stop();
      await rec.stop(); // idempotent
      assert.equal(observers.length, 2);
      assert.equal(observers[1], undefined, 'detached from the loop on stop');

      const bytes = readFileSync(path);
      assert.ok(!bytes.includes('pw@'), 'no userinfo in the file');
      const r = await Recording.open(path, never);
      try {
        assert.equal(r.header.context, 'ctx');
        assert.equal(r.header.server, 'https://api.example:6443');
        const at = await r.objectsAt(r.range.end, never);
        assert.deepEqual((at.get('pods/default/web-0') as { status: { phase: string } }).status.phase, 'Running');
        const secret = at.get('secrets/default/s') as { data: Record<string, string> };
        assert.match(secret.data.password!, /^<masked: 20 bytes>$/);
        const events = await r.timelineEvents({}, never);
        assert.equal(events.length, 1);
        assert.equal(events[0]!.e.kind, 'iteration');
        const history = await r.historyOf('pods/default/web-0', never);
        assert.deepEqual(
          history.map((c) => c.op),
          ['A', 'M'],
        );
      } finally {
        r.close();
      }
      // after stop, nothing more is written: a new timeline event does not reach the closed writer
      timeline.append({ kind: 'iteration', t: 6, source: 'sync', op: 'tick', key: '', handler: 'HandlePodSyncs', durationMs: 1, outcome: 'ok' });
      const again = await Recording.open(path, never);
      try {
        assert.equal((await again.timelineEvents({}, never)).length, 1);
      } finally {
        again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails to start on a path it cannot write, attaching nothing', async () => {
    const observers: (SyncObserver | undefined)[] = [];
    await assert.rejects(
      LiveRecording.start(
        {
          path: '/proc/no-such-dir/r.klr',
          loop: { record: (o) => void observers.push(o) },
          context: 'ctx',
          timeline: new TimelineStore(),
          maxMB: 1,
          maxHours: 1,
        },
        never,
      ),
    );
    assert.deepEqual(observers, []);
  });

  it('says REC and the file name in the status bar, the whole path and start time in the tooltip', () => {
    const startedAt = new Date(2024, 4, 6, 7, 8, 9).getTime();
    const s = recordingStatusText({ path: '/tmp/rec/night.klr', startedAt });
    assert.equal(s.text, '$(record) REC night.klr');
    assert.match(s.tooltip, /\/tmp\/rec\/night\.klr since 07:08:09\. Click to stop recording\./);
    assert.equal(clockTime(new Date(2024, 0, 1, 23, 59, 0).getTime()), '23:59:00');
  });

  it('proposes <folder>/kubeloop-<context>-<stamp>.klr with a file-safe context', () => {
    const now = new Date(2024, 10, 12, 13, 14, 15).getTime();
    assert.equal(defaultRecordingPath('/data', 'kind-dev', now), '/data/kubeloop-kind-dev-20241112-131415.klr');
    assert.equal(defaultRecordingPath('/data', 'arn:aws:eks/x y', now), '/data/kubeloop-arn_aws_eks_x_y-20241112-131415.klr');
    assert.equal(defaultRecordingPath('/data', undefined, now), '/data/kubeloop-cluster-20241112-131415.klr');
  });

  it("recordings go to KubeLoop's global storage unless a folder is set (never the workspace), created owner-only", async () => {
    const storage = mkdtempSync(join(tmpdir(), 'kubeloop-storage-'));
    try {
      const folder = await recordingsFolder('', storage);
      assert.equal(folder, join(storage, 'recordings'));
      assert.equal(statSync(folder).mode & 0o777, 0o700);
      const chosen = join(storage, 'mine');
      assert.equal(await recordingsFolder(chosen, storage), chosen);
      assert.ok(statSync(chosen).isDirectory());
    } finally {
      rmSync(storage, { recursive: true, force: true });
    }
  });

  it('reads the recording settings, rejecting a relative folder and out-of-range bounds', () => {
    const ok = readSettings((k) => ({ 'recording.maxMB': 10, 'recording.maxHours': 3, 'recording.folder': '~/recordings' })[k as string]);
    assert.deepEqual(ok.problems, []);
    assert.equal(ok.settings['recording.maxMB'], 10);
    assert.equal(ok.settings['recording.maxHours'], 3);
    assert.equal(ok.settings['recording.folder'], '~/recordings');
    const bad = readSettings((k) => ({ 'recording.maxMB': 0, 'recording.folder': 'recordings' })[k as string]);
    assert.equal(bad.settings['recording.maxMB'], 1024);
    assert.equal(bad.settings['recording.folder'], '');
    assert.equal(bad.problems.length, 2);
    assert.match(bad.problems.join(' '), /kubeloop\.recording\.folder must be an absolute path/);
  });
});
