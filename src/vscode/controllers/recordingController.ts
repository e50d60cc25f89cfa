/**
 * Start Recording / Stop Recording: the flight recorder on the running sync loop
 * (../../app/recording/liveRecording.ts), with a `$(record) REC <file>` status bar item while it
 * records (a click stops). Glue only.
 *
 * Start Recording with the sync loop stopped starts it: what is recorded is what the loop sees, so a
 * user who asks to record means "record the cluster now", and a recording that waits for a loop the
 * user has not started would record nothing. Stopping the loop (or its restart on a new scope) ends
 * the recording, closed cleanly.
 */
import * as vscode from 'vscode';
import { COMMANDS, CONTEXT_KEYS } from '../../app/commandIds';
import { expandHome } from '../../app/connection/connection';
import type { TimelineStore } from '../../core/timeline/store';
import { defaultRecordingPath, LiveRecording, recordingsFolder, recordingStatusText } from '../../app/recording/liveRecording';
import type { ResourceModel } from '../../app/model/resourceModel';
import { setContextKey, type Basics, type Storage } from './services';

export type RecordingDeps = Basics & Storage & { readonly timeline: TimelineStore; readonly model: Pick<ResourceModel, 'context' | 'server'> };
import type { SyncController } from './syncController';
import { redactUrl } from '../../core/kube/redactUrl';

export class RecordingController implements vscode.Disposable {
  private active: LiveRecording | undefined;
  private starting = false;
  private readonly item = vscode.window.createStatusBarItem('kubeloop.recording', vscode.StatusBarAlignment.Left, 49);

  constructor(
    private readonly s: RecordingDeps,
    private readonly sync: SyncController,
    /** Offered after a recording is saved ("Open Recording"). */
    private readonly open?: (path: string) => unknown,
  ) {
    this.item.name = 'KubeLoop Recording';
    this.item.command = COMMANDS.stopRecording.id;
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    sync.onStopped = () => void this.stop('the sync loop stopped');
  }

  get recording(): LiveRecording | undefined {
    return this.active;
  }

  /** `path`: the file to record to (tests, other extensions); without it, a save dialog asks. */
  async start(path?: unknown): Promise<void> {
    if (this.active) {
      void vscode.window.showInformationMessage(`KubeLoop: already recording to ${this.active.path}.`);
      return;
    }
    if (this.starting) return;
    this.starting = true;
    try {
      const file = typeof path === 'string' && path ? expandHome(path) : await this.askPath();
      if (!file) return;
      if (!this.sync.running) {
        this.s.log.info('recording: the sync loop is not running; starting it to record what it sees');
        await this.sync.start();
      }
      const loop = this.sync.current;
      if (!loop) {
        void vscode.window.showWarningMessage('KubeLoop: the sync loop is not running, so there is nothing to record. Start Recording again once it runs.');
        return;
      }
      const settings = this.s.settings();
      const rec = await LiveRecording.start(
        {
          path: file,
          loop,
          context: this.s.model.context ?? '',
          ...(this.s.model.server ? { server: redactUrl(this.s.model.server) } : {}),
          timeline: this.s.timeline,
          maxMB: settings['recording.maxMB'],
          maxHours: settings['recording.maxHours'],
          onError: (e) => {
            this.s.log.error(`recording: stopped, writing ${file} failed: ${e.message}`);
            void vscode.window.showErrorMessage(`KubeLoop: the recording stopped: writing ${file} failed: ${e.message}`);
            void this.stop('writing failed');
          },
        },
        AbortSignal.timeout(settings.requestTimeoutSeconds * 1000),
      );
      if (this.sync.current !== loop) {
        await rec.stop(); // the loop stopped while the file opened
        return;
      }
      this.active = rec;
      this.s.log.info(`recording: started, to ${file} (bounds ${settings['recording.maxMB']} MiB, ${settings['recording.maxHours']} h)`);
      const { text, tooltip } = recordingStatusText(rec);
      this.item.text = text;
      this.item.tooltip = tooltip;
      this.item.show();
      setContextKey(CONTEXT_KEYS.recording, true);
    } finally {
      this.starting = false;
    }
  }

  async stop(reason = 'stopped by the user'): Promise<void> {
    const rec = this.active;
    if (!rec) {
      if (reason === 'stopped by the user') void vscode.window.showInformationMessage('KubeLoop: not recording.');
      return;
    }
    this.active = undefined;
    this.item.hide();
    setContextKey(CONTEXT_KEYS.recording, false);
    await rec.stop();
    this.s.log.info(`recording: ${reason}; saved ${rec.path}`);
    const open = this.open;
    // not awaited: the choice may never come (and shutdown must not wait for it)
    void vscode.window.showInformationMessage(`KubeLoop: recording saved to ${rec.path}.`, ...(open ? ['Open Recording'] : [])).then((c) => {
      if (c === 'Open Recording') open?.(rec.path);
    });
  }

  private async askPath(): Promise<string | undefined> {
    const folder = await recordingsFolder(this.s.settings()['recording.folder'], this.s.storagePath);
    const uri = await vscode.window.showSaveDialog({
      title: 'KubeLoop: Start Recording',
      saveLabel: 'Record',
      defaultUri: vscode.Uri.file(defaultRecordingPath(folder, this.s.model.context, Date.now())),
      filters: { 'KubeLoop recordings': ['klr'] },
    });
    return uri?.fsPath;
  }

  dispose(): void {
    this.sync.onStopped = undefined;
    void this.active?.stop();
    this.active = undefined;
    this.item.dispose();
  }
}
