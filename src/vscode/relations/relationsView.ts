/**
 * The Relations view: Show Relations on an object row fills it with the object's owners, what it
 * owns and its Events (app/relations/relationRows.ts); Warnings Only toggles the Events filter.
 * A row of an observed object opens its YAML. On a row of the Recording tree, all of it is read
 * from the recording at its instant (app/relations/recordedRelations.ts), Events the API server
 * has expired included, and a row opens the recorded YAML. Glue only.
 */
import * as vscode from 'vscode';
import { COMMANDS, CONTEXT_KEYS, RELATIONS_VIEW_ID } from '../../app/commandIds';
import type { ResourceModel } from '../../app/model/resourceModel';
import { CLUSTER } from '../../app/model/resourceModel';
import { liveEventsAbout, type EventLister } from '../../app/relations/objectEvents';
import { recordedRelations } from '../../app/relations/recordedRelations';
import type { Recording } from '../../core/recorder/reader';
import { relationRows, type RelationRow } from '../../app/relations/relationRows';
import type { Relations } from '../../app/relations/relations';
import type { ResourceNode } from '../../app/tree/treeNode';
import { yamlUri } from '../yaml/provider';

export interface RelationsViewDeps {
  readonly model: ResourceModel;
  readonly relations: Relations;
  /** The window's client, when one can be opened (Events are read live). */
  client(): Promise<EventLister | undefined>;
}

/** A recorded object: the open recording, its instant and the object's key. */
export interface RecordedObjectRef {
  rec: Pick<Recording, 'objectsAt' | 'records'>;
  at: number;
  key: string;
  file: string;
}

export class RelationsView implements vscode.TreeDataProvider<RelationRow>, vscode.Disposable {
  private rows: RelationRow[] = [];
  private subject: { uid: string; kind: string; name: string; namespace?: string } | undefined;
  /** Set while the view shows a recorded object (cleared by a live Show Relations). */
  private recorded: RecordedObjectRef | undefined;
  private warningsOnly = false;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<RelationRow>;
  private current: AbortController | undefined;

  constructor(private readonly d: RelationsViewDeps) {
    this.view = vscode.window.createTreeView(RELATIONS_VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
  }

  /** Show Relations on `node` (an object row of the window's tree). */
  async show(node: ResourceNode | undefined): Promise<void> {
    const view = node?.kind === 'object' ? this.d.model.object(node.namespace ?? CLUSTER, node.typeKey!, node.name!)?.view : undefined;
    if (!view) {
      void vscode.window.showInformationMessage('KubeLoop: select an object in the KubeLoop resource tree first, then run Show Relations.');
      return;
    }
    this.subject = { uid: view.uid, kind: view.kind, name: view.name, ...(view.namespace ? { namespace: view.namespace } : {}) };
    this.recorded = undefined;
    await this.reveal();
  }

  /** Show Relations on a row of the Recording tree: owners, owned and Events from the recording. */
  async showRecorded(r: RecordedObjectRef): Promise<void> {
    this.recorded = r;
    this.subject = undefined;
    await this.reveal();
  }

  private async reveal(): Promise<void> {
    // awaited: the view exists (its `when`) before it is focused below
    await vscode.commands.executeCommand('setContext', CONTEXT_KEYS.relationsShown, true);
    await this.update();
    await vscode.commands.executeCommand(`${RELATIONS_VIEW_ID}.focus`);
  }

  async toggleWarnings(): Promise<void> {
    this.warningsOnly = !this.warningsOnly;
    await this.update();
  }

  private async update(): Promise<void> {
    this.current?.abort(new Error('superseded'));
    const ac = (this.current = new AbortController());
    if (this.recorded) return this.updateRecorded(this.recorded, ac.signal);
    const s = this.subject;
    if (!s) return;
    const ix = this.d.relations.index;
    const owners = ix.ownersOf(s.uid) ?? { node: { ...s, virtual: false }, controller: false, children: [] };
    const dependents = ix.dependentsOf(s.uid) ?? { node: owners.node, controller: false, children: [] };
    const client = await this.d.client();
    const answer = client
      ? await liveEventsAbout(client, s, ac.signal, this.warningsOnly).catch((e: unknown) => ({ error: String(e) }))
      : { error: 'not connected' };
    if (ac.signal.aborted) return;
    this.rows = relationRows({ owners, dependents, events: 'rows' in answer ? answer.rows : answer, warningsOnly: this.warningsOnly });
    this.view.title = `Relations: ${s.kind} ${s.name}`;
    this.changed.fire();
  }

  private async updateRecorded(r: RecordedObjectRef, signal: AbortSignal): Promise<void> {
    const got = await recordedRelations(r.rec, r.at, r.key, this.warningsOnly, signal).catch((e: unknown) => ({ error: String(e) }));
    if (signal.aborted) return;
    if ('error' in got) {
      this.rows = [{ id: 'error', label: `Relations could not be read from ${r.file}: ${got.error}` }];
      this.view.title = 'Relations (recorded)';
    } else {
      this.rows = relationRows(got.input);
      this.view.title = `Relations: ${got.subject.kind} ${got.subject.name} (${r.file})`;
    }
    this.changed.fire();
  }

  getTreeItem(r: RelationRow): vscode.TreeItem {
    const item = new vscode.TreeItem(
      r.label,
      r.children
        ? r.id === 'owned' || r.id === 'owners' || r.id === 'events'
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed
        : vscode.TreeItemCollapsibleState.None,
    );
    item.id = r.id;
    if (r.description) item.description = r.description;
    if (r.tooltip) item.tooltip = r.tooltip;
    if (r.warning) item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
    if (r.open && this.recorded) {
      // the recorded object's YAML at the recording's instant (the Recording tree's own command)
      const key = `${r.open.typeKey}/${r.open.namespace ?? ''}/${r.open.name}`;
      item.command = { command: COMMANDS.openRecordedYaml.id, title: COMMANDS.openRecordedYaml.title, arguments: [{ kind: 'object', key }] };
      return item;
    }
    const type = r.open && this.d.model.type(r.open.typeKey);
    if (r.open && type && this.d.model.context) {
      const uri = yamlUri({ context: this.d.model.context, ...type.gvr, ...(r.open.namespace ? { namespace: r.open.namespace } : {}), name: r.open.name });
      item.command = { command: 'vscode.open', title: 'Open Resource YAML', arguments: [uri, { preview: true }] };
    }
    return item;
  }

  getChildren(r?: RelationRow): RelationRow[] {
    return r ? (r.children ?? []) : this.rows;
  }

  dispose(): void {
    this.current?.abort(new Error('disposed'));
    this.view.dispose();
    this.changed.dispose();
  }
}
