/**
 * Open Recording...: a recording's timeline panel (the live timeline's webview, fed from the
 * recording, with a read-only banner), the Recording tree (the cluster as the recording holds it at
 * the chosen instant), an object's YAML at that instant, and its history as diffs, all read-only
 * virtual documents of the `kubeloop-recording` scheme. Glue only: the logic is
 * ../../app/recording/recordedTimeline.ts and recordedObjects.ts over core/recorder's reader.
 *
 * Choosing an instant: selecting an event in the recording's timeline (a bar, a mark, or a row of
 * its event list) shows the cluster just after it; "Recording: Go to Time..." takes a clock time.
 * One recording is open at a time; closing its panel closes the file and hides the tree.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { CONTEXT_KEYS, COMMANDS, ITEM_CONTEXT, RECORDING_VIEW_ID } from '../../app/commandIds';
import { expandHome } from '../../app/connection/connection';
import { clockTime, recordingsFolder } from '../../app/recording/liveRecording';
import {
  historyDiffTitle,
  historyItems,
  objectLabel,
  parseRecordingDocPath,
  recordedTypes,
  recordedPage,
  RECORDED_PAGE,
  sortedKeys,
  recordingDocPath,
  renderRecordedYaml,
  RECORDING_SCHEME,
  type RecordingDoc,
} from '../../app/recording/recordedObjects';
import { instantOf, parseInstant, recordedTimeline, recordingBanner } from '../../app/recording/recordedTimeline';
import { Recording, type ObjectChange } from '../../core/recorder/reader';
import { TimelineStore } from '../../core/timeline/store';
import { TimelinePanel, type TimelinePanelOptions } from '../timeline/panel';
import { setContextKey, type Basics, type Storage } from './services';

type RecNode =
  | { kind: 'type'; type: string; keys: string[]; sorted?: boolean }
  | { kind: 'object'; key: string }
  | { kind: 'more'; type: string; keys: string[]; from: number };

interface OpenRecording {
  id: number;
  path: string;
  file: string;
  rec: Recording;
  range: { start: number; end: number };
  /** The instant the tree shows, and the objects then. */
  at: number;
  objects: ReadonlyMap<string, Record<string, unknown>>;
  histories: Map<string, ObjectChange[]>;
  panel?: TimelinePanel;
}

export class RecordingViewer implements vscode.TreeDataProvider<RecNode>, vscode.TextDocumentContentProvider, vscode.Disposable {
  private open: OpenRecording | undefined;
  private nextId = 1;
  /** Bumped by every instant chosen: a slower rebuild of an older choice is dropped. */
  private generation = 0;
  private readonly treeChanged = new vscode.EventEmitter<RecNode | undefined>();
  readonly onDidChangeTreeData = this.treeChanged.event;
  private readonly docChanged = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.docChanged.event;
  private readonly view: vscode.TreeView<RecNode>;

  constructor(
    private readonly s: Basics & Storage,
    private readonly panelOptions: () => Pick<TimelinePanelOptions, 'extensionUri' | 'log'>,
  ) {
    this.view = vscode.window.createTreeView(RECORDING_VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
  }

  /** Opens `path` (tests, Stop Recording's "Open Recording"), else asks with an open dialog. */
  async openFile(path?: unknown): Promise<void> {
    const file = typeof path === 'string' && path ? expandHome(path) : await this.askPath();
    if (!file) return;
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `KubeLoop: opening recording ${basename(file)}`, cancellable: true },
      async (_p, token) => {
        const ac = new AbortController();
        const sub = token.onCancellationRequested(() => ac.abort(new Error('cancelled')));
        let rec: Recording | undefined;
        try {
          rec = await Recording.open(file, ac.signal);
          const range = rec.range;
          const events = recordedTimeline(await rec.timelineEvents({}, ac.signal), range.start);
          const objects = await rec.objectsAt(range.end, ac.signal);
          const store = new TimelineStore(Math.max(events.length, 1));
          for (const e of events) store.append(e);
          this.close();
          const o: OpenRecording = { id: this.nextId++, path: file, file: basename(file), rec, range, at: range.end, objects, histories: new Map() };
          rec = undefined; // owned by `o` from here
          this.open = o;
          setContextKey(CONTEXT_KEYS.recordingOpen, true);
          this.describe(o);
          this.treeChanged.fire(undefined);
          this.s.log.info(`recording: opened ${file}: ${events.length} timeline events, ${o.objects.size} objects at its end`);
          await vscode.commands.executeCommand(`${RECORDING_VIEW_ID}.focus`);
          o.panel = TimelinePanel.showRecording({
            ...this.panelOptions(),
            store,
            title: `Recording ${o.file}`,
            banner: recordingBanner(o.file, range, o.at),
            onSelect: (_id, e) => void this.goTo(instantOf(e, range.start)),
            onDispose: () => {
              if (this.open === o) this.close();
            },
          });
        } finally {
          rec?.close();
          sub.dispose();
        }
      },
    );
  }

  /** Shows the cluster at `t` (clamped to the recording) in the tree, the banner and open documents. */
  async goTo(t: number): Promise<void> {
    const o = this.open;
    if (!o) return;
    const at = Math.min(Math.max(t, o.range.start), o.range.end);
    const gen = ++this.generation;
    const objects = await o.rec.objectsAt(at, AbortSignal.timeout(120_000));
    if (gen !== this.generation || this.open !== o) return;
    o.at = at;
    o.objects = objects;
    this.describe(o);
    o.panel?.setBanner(recordingBanner(o.file, o.range, at));
    this.treeChanged.fire(undefined);
  }

  /** Recording: Go to Time...: a clock time within the recording, or +SECONDS from its start. */
  async goToTime(): Promise<void> {
    const o = this.open;
    if (!o) {
      void vscode.window.showInformationMessage('KubeLoop: open a recording first (KubeLoop: Open Recording...).');
      return;
    }
    const text = await vscode.window.showInputBox({
      title: `KubeLoop: Recording ${o.file}: Go to Time`,
      prompt: `A time from ${clockTime(o.range.start)} to ${clockTime(o.range.end)} (HH:MM:SS), or +SECONDS from the start`,
      value: clockTime(o.at),
      validateInput: (v) => (parseInstant(v, o.range) === undefined ? 'Not a time within the recording' : undefined),
    });
    const t = text === undefined ? undefined : parseInstant(text, o.range);
    if (t !== undefined) await this.goTo(t);
  }

  /** An object's YAML at the tree's instant. */
  async openYaml(arg: unknown): Promise<void> {
    const o = this.open;
    const key = nodeKey(arg);
    if (!o || !key) return;
    const doc = await vscode.workspace.openTextDocument(this.uri({ recording: o.id, key, kind: 'at', t: o.at }));
    await vscode.window.showTextDocument(doc, { preview: true });
  }

  /** The open recording, its instant and the key of `arg` when it is one of its objects' rows (Show Relations on it). */
  recordedObject(arg: unknown): { rec: Recording; at: number; key: string; file: string } | undefined {
    const o = this.open;
    const key = nodeKey(arg);
    return o && key ? { rec: o.rec, at: o.at, key, file: o.file } : undefined;
  }

  /** Every recorded change of an object (from the tree, else chosen among the objects at the instant); the chosen one opens as a diff. */
  async showHistory(arg: unknown): Promise<void> {
    const o = this.open;
    if (!o) {
      void vscode.window.showInformationMessage('KubeLoop: open a recording first (KubeLoop: Open Recording...).');
      return;
    }
    let key = nodeKey(arg);
    if (!key) {
      const pick = await vscode.window.showQuickPick(
        [...o.objects.keys()].sort().map((k) => ({ label: objectLabel(k), description: k.slice(0, k.indexOf('/')), key: k })),
        {
          title: `KubeLoop: Show Recorded History (${o.file} at ${clockTime(o.at)})`,
          placeHolder: 'The object whose changes to list',
          matchOnDescription: true,
        },
      );
      key = pick?.key;
    }
    if (!key || this.open !== o) return;
    const history = await this.history(o, key, AbortSignal.timeout(120_000));
    if (!history.length) {
      void vscode.window.showInformationMessage(`KubeLoop: ${objectLabel(key)} has no recorded change.`);
      return;
    }
    const chosen = await vscode.window.showQuickPick(historyItems(history), {
      title: `KubeLoop: ${objectLabel(key)}: ${history.length} recorded change(s), newest first`,
      placeHolder: 'A change to see as a diff',
      matchOnDescription: true,
    });
    if (!chosen || this.open !== o) return;
    const c = history[chosen.change]!;
    await vscode.commands.executeCommand(
      'vscode.diff',
      this.uri({ recording: o.id, key, kind: 'before', change: chosen.change }),
      this.uri({ recording: o.id, key, kind: 'after', change: chosen.change }),
      historyDiffTitle(key, c),
      { preview: true },
    );
  }

  // ---- the tree ----------------------------------------------------------------------------------

  getChildren(node?: RecNode): RecNode[] {
    const o = this.open;
    if (!o) return [];
    if (!node) return recordedTypes(o.objects.keys()).map((t) => ({ kind: 'type', type: t.type, keys: t.keys }));
    if (node.kind === 'object') return [];
    // A page of objects at a time, the rest behind a "more" row (expanded: the next page).
    const keys = node.kind === 'type' ? sortedKeys(node) : node.keys;
    const page = recordedPage(keys, node.kind === 'type' ? 0 : node.from);
    const rows: RecNode[] = page.keys.map((key) => ({ kind: 'object', key }));
    if (page.next !== undefined) rows.push({ kind: 'more', type: node.type, keys, from: page.next });
    return rows;
  }

  getTreeItem(node: RecNode): vscode.TreeItem {
    if (node.kind === 'more') {
      const item = new vscode.TreeItem(`${node.keys.length - node.from} more ${node.type}`, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `more:${node.type}:${node.from}`;
      item.tooltip = `Expand for the next ${Math.min(RECORDED_PAGE, node.keys.length - node.from)}`;
      return item;
    }
    if (node.kind === 'type') {
      const item = new vscode.TreeItem(node.type, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `type:${node.type}`;
      item.description = `${node.keys.length}`;
      item.contextValue = ITEM_CONTEXT.recordedType;
      return item;
    }
    const item = new vscode.TreeItem(objectLabel(node.key), vscode.TreeItemCollapsibleState.None);
    item.id = `object:${node.key}`;
    item.tooltip = `${node.key} as recorded (read-only)`;
    item.contextValue = ITEM_CONTEXT.recordedObject;
    item.command = { command: COMMANDS.openRecordedYaml.id, title: COMMANDS.openRecordedYaml.title, arguments: [node] };
    return item;
  }

  // ---- the documents -----------------------------------------------------------------------------

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const d = parseRecordingDocPath(uri.path);
    if (!d) return `# Not a KubeLoop recording document: ${uri.path.replace(/[\r\n]+/g, ' ')}\n`;
    const o = this.open;
    if (!o || o.id !== d.recording) return '# This recording is closed. Open it again with KubeLoop: Open Recording...\n';
    const ac = new AbortController();
    const sub = token.onCancellationRequested(() => ac.abort(new Error('cancelled')));
    try {
      if (d.kind === 'at') {
        const objects = d.t === o.at ? o.objects : await o.rec.objectsAt(d.t, ac.signal);
        return renderRecordedYaml(o.file, d.key, objects.get(d.key), d.t);
      }
      const c = (await this.history(o, d.key, ac.signal))[d.change];
      if (!c) return '# No such change in this recording.\n';
      return renderRecordedYaml(o.file, d.key, d.kind === 'before' ? c.before : c.after, c.t, d.kind === 'before' ? 'before the change' : 'after the change');
    } finally {
      sub.dispose();
    }
  }

  private async history(o: OpenRecording, key: string, signal: AbortSignal): Promise<ObjectChange[]> {
    let h = o.histories.get(key);
    if (!h) {
      h = await o.rec.historyOf(key, signal);
      if (o.histories.size > 50) o.histories.clear(); // a few objects' histories, not the recording's
      o.histories.set(key, h);
    }
    return h;
  }

  private uri(d: RecordingDoc): vscode.Uri {
    return vscode.Uri.from({ scheme: RECORDING_SCHEME, path: recordingDocPath(d) });
  }

  private describe(o: OpenRecording): void {
    this.view.description = `recording at ${clockTime(o.at)}`;
    this.view.message =
      `Read-only: ${o.file} as recorded at ${new Date(o.at).toISOString()}, not the cluster now.` +
      (o.objects.size ? '' : ' No objects recorded by then: the sync loop had not listed them to the recorder yet.');
  }

  private async askPath(): Promise<string | undefined> {
    const folder = await recordingsFolder(this.s.settings()['recording.folder'], this.s.storagePath);
    const uris = await vscode.window.showOpenDialog({
      title: 'KubeLoop: Open Recording',
      openLabel: 'Open Recording',
      canSelectMany: false,
      defaultUri: vscode.Uri.file(folder),
      filters: { 'KubeLoop recordings': ['klr'], 'All files': ['*'] },
    });
    return uris?.[0]?.fsPath;
  }

  private close(): void {
    const o = this.open;
    if (!o) return;
    this.open = undefined;
    this.generation++;
    o.panel?.dispose(); // its onDispose sees another open recording (or none) and does nothing
    o.rec.close();
    setContextKey(CONTEXT_KEYS.recordingOpen, false);
    this.view.description = undefined;
    this.view.message = undefined;
    this.treeChanged.fire(undefined);
  }

  dispose(): void {
    this.close();
    this.view.dispose();
    this.treeChanged.dispose();
    this.docChanged.dispose();
  }
}

function nodeKey(arg: unknown): string | undefined {
  const n = arg as RecNode | undefined;
  return n && typeof n === 'object' && n.kind === 'object' && typeof n.key === 'string' ? n.key : undefined;
}
