/**
 * The parts of package.json's `contributes` that follow from code: commands (from COMMANDS), menus
 * (which command shows where, by node kind and context key), the settings schema (from SETTINGS), the
 * keyboard shortcuts and the walkthrough (from walkthrough/walkthrough.ts).
 * A unit test holds package.json equal to these; `node --import tsx src/app/manifest.ts --write`
 * rewrites those three sections (and nothing else) after a change here.
 * No 'vscode' import.
 */
import {
  CATEGORY,
  COMMANDS,
  CONTEXT_KEYS,
  ITEM_CONTEXT,
  RECORDING_VIEW_ID,
  RELATIONS_VIEW_ID,
  RESOURCES_VIEW_ID,
  TIMELINE_PANEL_TYPE,
  type CommandName,
} from './commandIds';
import { configurationSchema } from './settings';
import { contributedKeybindings, contributedWalkthroughs } from './walkthrough/walkthrough';

export interface ContributedCommand {
  command: string;
  title: string;
  category: string;
  icon?: string;
}

export interface MenuItem {
  command: string;
  when: string;
  group?: string;
}

export function contributedCommands(): ContributedCommand[] {
  return Object.values(COMMANDS).map((c) => ({ command: c.id, title: c.title, category: CATEGORY, ...(c.icon ? { icon: c.icon } : {}) }));
}

const view = `view == ${RESOURCES_VIEW_ID}`;
const item = (...kinds: string[]) => `${view} && viewItem =~ /^(${kinds.map((k) => k.replace(/\./g, '\\.')).join('|')})$/`;
const id = (name: CommandName) => COMMANDS[name].id;

export function contributedMenus(): Record<string, MenuItem[]> {
  const palette: MenuItem[] = Object.values(COMMANDS)
    .filter((c) => 'palette' in c && c.palette === false)
    .map((c) => ({ command: c.id, when: 'false' }));
  palette.push(
    { command: id('cancelLoad'), when: CONTEXT_KEYS.loading },
    { command: id('stopSyncLoop'), when: CONTEXT_KEYS.syncRunning },
    { command: id('clearFilter'), when: CONTEXT_KEYS.filtered },
    { command: id('stopDemoCluster'), when: CONTEXT_KEYS.demoRunning },
    { command: id('openDemoTerminal'), when: CONTEXT_KEYS.demoRunning },
    { command: id('startRecording'), when: `!${CONTEXT_KEYS.recording}` },
    { command: id('stopRecording'), when: CONTEXT_KEYS.recording },
    { command: id('recordingGoToTime'), when: CONTEXT_KEYS.recordingOpen },
    { command: id('showRecordedHistory'), when: CONTEXT_KEYS.recordingOpen },
  );
  const recorded = `view == ${RECORDING_VIEW_ID} && viewItem == ${ITEM_CONTEXT.recordedObject}`;
  return {
    commandPalette: palette,
    'view/title': [
      { command: id('loadClusterResources'), when: `${view} && !${CONTEXT_KEYS.loading}`, group: 'navigation@1' },
      { command: id('cancelLoad'), when: `${view} && ${CONTEXT_KEYS.loading}`, group: 'navigation@1' },
      { command: id('filter'), when: view, group: 'navigation@2' },
      { command: id('showTimeline'), when: view, group: 'navigation@3' },
      { command: id('refresh'), when: view, group: 'navigation@4' },
      { command: id('selectContext'), when: view, group: '1_cluster@1' },
      { command: id('selectNamespaces'), when: view, group: '1_cluster@2' },
      { command: id('addContext'), when: view, group: '1_cluster@4' },
      { command: id('clearFilter'), when: `${view} && ${CONTEXT_KEYS.filtered}`, group: '1_cluster@3' },
      { command: id('startSyncLoop'), when: `${view} && !${CONTEXT_KEYS.syncRunning}`, group: '3_sync@1' },
      { command: id('stopSyncLoop'), when: `${view} && ${CONTEXT_KEYS.syncRunning}`, group: '3_sync@1' },
      { command: id('chooseSyncNode'), when: view, group: '3_sync@2' },
      { command: id('startRecording'), when: `${view} && !${CONTEXT_KEYS.recording}`, group: '3_sync@3' },
      { command: id('stopRecording'), when: `${view} && ${CONTEXT_KEYS.recording}`, group: '3_sync@3' },
      { command: id('startDemoCluster'), when: `${view} && !${CONTEXT_KEYS.demoRunning}`, group: '4_demo@1' },
      { command: id('stopDemoCluster'), when: `${view} && ${CONTEXT_KEYS.demoRunning}`, group: '4_demo@1' },
      { command: id('showLogs'), when: view, group: '5_logs@1' },
      { command: id('openRecording'), when: view, group: '3_sync@4' },
      { command: id('recordingGoToTime'), when: `view == ${RECORDING_VIEW_ID}`, group: 'navigation@1' },
      { command: id('relationsWarningsOnly'), when: `view == ${RELATIONS_VIEW_ID}`, group: 'navigation@1' },
    ],
    'view/item/context': [
      { command: id('openResourceYaml'), when: item(ITEM_CONTEXT.object), group: 'inline' },
      { command: id('refreshType'), when: item(ITEM_CONTEXT.type, ITEM_CONTEXT.typeError), group: 'inline' },
      { command: id('openResourceYaml'), when: item(ITEM_CONTEXT.object), group: '1_open@1' },
      { command: id('revealInTimeline'), when: item(ITEM_CONTEXT.object), group: '1_open@2' },
      { command: id('showStartup'), when: item(ITEM_CONTEXT.object), group: '1_open@3' },
      { command: id('showContainerLogs'), when: item(ITEM_CONTEXT.object), group: '1_open@5' },
      { command: id('showPreviousContainerLogs'), when: item(ITEM_CONTEXT.object), group: '1_open@6' },
      { command: id('showRelations'), when: item(ITEM_CONTEXT.object), group: '1_open@4' },
      { command: id('copyName'), when: item(ITEM_CONTEXT.object, ITEM_CONTEXT.namespace, ITEM_CONTEXT.context, ITEM_CONTEXT.listedContext), group: '2_copy@1' },
      { command: id('loadContext'), when: item(ITEM_CONTEXT.listedContext), group: 'inline' },
      { command: id('removeContext'), when: item(ITEM_CONTEXT.listedContext), group: 'inline' },
      { command: id('loadContext'), when: item(ITEM_CONTEXT.listedContext), group: '3_refresh@1' },
      { command: id('removeContext'), when: item(ITEM_CONTEXT.listedContext), group: '4_remove@1' },
      { command: id('refreshType'), when: item(ITEM_CONTEXT.type, ITEM_CONTEXT.typeError), group: '3_refresh@1' },
      { command: id('showRecordedHistory'), when: recorded, group: 'inline' },
      { command: id('openRecordedYaml'), when: recorded, group: '1_open@1' },
      { command: id('showRelations'), when: recorded, group: '1_open@3' },
      { command: id('showRecordedHistory'), when: recorded, group: '1_open@2' },
    ],
  };
}

/** Activation: on first use of the view or a command (implicit), and to revive a timeline panel after a reload. */
export function activationEvents(): string[] {
  return [`onWebviewPanel:${TIMELINE_PANEL_TYPE}`];
}

export { configurationSchema };

interface PackageJson {
  activationEvents?: string[];
  contributes: { commands?: unknown; menus?: unknown; configuration?: { title?: string; properties?: unknown }; keybindings?: unknown; walkthroughs?: unknown };
}

/** package.json with the generated sections replaced; every other key keeps its value and order. */
export function withGeneratedContributions<T extends PackageJson>(pkg: T): T {
  const out = structuredClone(pkg);
  out.activationEvents = activationEvents();
  out.contributes.commands = contributedCommands();
  out.contributes.menus = contributedMenus();
  out.contributes.configuration = { ...(out.contributes.configuration ?? {}), title: 'KubeLoop', properties: configurationSchema() };
  out.contributes.keybindings = contributedKeybindings();
  out.contributes.walkthroughs = contributedWalkthroughs();
  return out;
}

if (require.main === module && process.argv.includes('--write')) {
  const fs = require('node:fs') as typeof import('node:fs');
  const path = require('node:path').join(__dirname, '..', '..', 'package.json') as string;
  const pkg = JSON.parse(fs.readFileSync(path, 'utf8')) as PackageJson;
  fs.writeFileSync(path, `${JSON.stringify(withGeneratedContributions(pkg), null, 2)}\n`);
  console.log(`wrote ${path}`);
}
