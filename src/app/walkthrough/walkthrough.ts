/**
 * The first-run walkthrough (package.json `contributes.walkthroughs`) and the keyboard shortcuts
 * (`contributes.keybindings`), as data: src/app/manifest.ts writes both into package.json and a
 * unit test holds them to the commands and context keys that exist. No 'vscode' import.
 *
 * Each step completes on what the user has done, not on a click: a context key the extension sets
 * when the state is reached (the demo cluster runs, the tree holds objects, the sync loop runs, the
 * probe-me pod has been restarted by its liveness probe), or the command that opens the timeline.
 */
import { COMMANDS, CONTEXT_KEYS, RESOURCES_VIEW_ID } from '../commandIds';

/** Context keys only the walkthrough reads (set by walkthrough/progress.ts). */
export const WALKTHROUGH_KEYS = {
  /** The tree holds at least one object of a loaded cluster. */
  loaded: 'kubeloop.walkthrough.loaded',
  /** The model shows default/probe-me restarted at least once. */
  probeMeRestarted: 'kubeloop.walkthrough.probeMeRestarted',
} as const;

export const WALKTHROUGH_ID = 'gettingStarted';
/** The pod the last step asks for, and where (the study guide's names). */
export const PROBE_ME = { namespace: 'default', name: 'probe-me' } as const;

export interface WalkthroughStep {
  id: string;
  title: string;
  description: string;
  media: { markdown: string } | { image: string; altText: string };
  completionEvents: string[];
}

const link = (title: string, command: string) => `[${title}](command:${command})`;

export function walkthroughSteps(): WalkthroughStep[] {
  return [
    {
      id: 'startDemo',
      title: 'Start the demo cluster',
      description: `No cluster at hand? KubeLoop carries one: a Kubernetes API server with a simulated kubelet, running inside the extension on 127.0.0.1. With a cluster of your own, skip to the next step.\n${link('Start Demo Cluster', COMMANDS.startDemoCluster.id)}`,
      media: { markdown: 'media/walkthrough/demo.md' },
      completionEvents: [`onContext:${CONTEXT_KEYS.demoRunning}`],
    },
    {
      id: 'load',
      title: 'Load the cluster into the tree',
      description: `The loader lists every resource type on a pool of workers; the tree fills in as lists arrive, with each object's status in words.\n${link('Load Cluster Resources', COMMANDS.loadClusterResources.id)}`,
      media: { markdown: 'media/walkthrough/load.md' },
      completionEvents: [`onContext:${WALKTHROUGH_KEYS.loaded}`],
    },
    {
      id: 'sync',
      title: 'Start the sync loop',
      description: `A kubelet-style sync loop keeps the tree converged with the cluster and logs what it handles.\n${link('Start Sync Loop', COMMANDS.startSyncLoop.id)}`,
      media: { markdown: 'media/walkthrough/sync.md' },
      completionEvents: [`onContext:${CONTEXT_KEYS.syncRunning}`],
    },
    {
      id: 'timeline',
      title: 'Open the timeline',
      description: `Every loader task and sync-loop iteration on one timeline: zoom, pan, filter, and read each mark's details.\n${link('Show Timeline', COMMANDS.showTimeline.id)}`,
      media: { markdown: 'media/walkthrough/timeline.md' },
      completionEvents: [`onCommand:${COMMANDS.showTimeline.id}`],
    },
    {
      id: 'probeMe',
      title: 'Watch a liveness probe fail',
      description: `Create the probe-me pod, whose liveness probe asks a port nobody listens on: the kubelet restarts it, and the tree and the timeline show why. Run the command in a terminal that points at the demo cluster; this step is done when the tree shows probe-me restarted.\n${link('Open Terminal on Demo Cluster', COMMANDS.openDemoTerminal.id)}`,
      media: { markdown: 'media/walkthrough/probe-me.md' },
      completionEvents: [`onContext:${WALKTHROUGH_KEYS.probeMeRestarted}`],
    },
  ];
}

export function contributedWalkthroughs(): Record<string, unknown>[] {
  return [
    {
      id: WALKTHROUGH_ID,
      title: 'Get Started with KubeLoop',
      description:
        'From install to a filled tree, a running sync loop and a liveness probe failing on the timeline, in about a minute, on the embedded demo cluster.',
      steps: walkthroughSteps(),
    },
  ];
}

export interface Keybinding {
  command: string;
  key: string;
  when?: string;
}

/**
 * Shortcuts: a `Ctrl+Alt+K` chord, then one letter. `Ctrl+Alt+K` is bound by none of VS Code's
 * defaults on Windows and Linux (checked against code-server 4.100.3's workbench), and on macOS the
 * same keys are Control+Option+K, also free; so no default shortcut is shadowed.
 */
export function contributedKeybindings(): Keybinding[] {
  const chord = (letter: string) => `ctrl+alt+k ${letter}`;
  return [
    { command: COMMANDS.loadClusterResources.id, key: chord('l'), when: `!${CONTEXT_KEYS.loading}` },
    { command: COMMANDS.cancelLoad.id, key: chord('l'), when: CONTEXT_KEYS.loading },
    { command: COMMANDS.startSyncLoop.id, key: chord('s'), when: `!${CONTEXT_KEYS.syncRunning}` },
    { command: COMMANDS.stopSyncLoop.id, key: chord('s'), when: CONTEXT_KEYS.syncRunning },
    { command: COMMANDS.showTimeline.id, key: chord('t') },
    { command: COMMANDS.selectContext.id, key: chord('c') },
    { command: COMMANDS.selectNamespaces.id, key: chord('n') },
    { command: COMMANDS.filter.id, key: chord('f') },
    { command: COMMANDS.refresh.id, key: chord('r') },
    { command: COMMANDS.startDemoCluster.id, key: chord('d') },
    { command: COMMANDS.showLogs.id, key: chord('o') },
    // the view's own focus command (VS Code adds `<view id>.focus` for every view)
    { command: `${RESOURCES_VIEW_ID}.focus`, key: chord('k') },
  ];
}
