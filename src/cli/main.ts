/**
 * `kubeloop <command> [flags]`: the headless command line. This file only dispatches on the first
 * argument; each command lives in its own module and returns its exit code.
 */
import { runDemoCluster } from './demoCluster';
import { runSync } from './sync';
import { runLoadCommand } from './load';
import { runExport } from './export';
import { runWriters } from './writers';
import { runStartup } from './startup';
import { runLogs } from './logs';
import { runOwners } from './owners';
import { cliWriter } from './terminal';

type Command = (args: string[]) => Promise<number>;

const commands: Record<string, { run: Command; summary: string }> = {
  'demo-cluster': { run: runDemoCluster, summary: 'run the embedded demo Kubernetes API server until Ctrl-C' },
  sync: { run: (args) => runSync(args), summary: 'run the sync loop headless and print every iteration' },
  load: { run: runLoadCommand, summary: 'load every listable resource type with a pool of workers and report it' },
  writers: { run: (args) => runWriters(args), summary: 'show who writes to the cluster, how fast, and who is fighting' },
  logs: { run: (args) => runLogs(args), summary: "print a container instance's log, or an owner's pods' logs interleaved (kubectl's flags)" },
  export: { run: (args) => runExport(args), summary: 'write a flight recording as a Chrome trace or JSON lines' },
  startup: { run: (args) => runStartup(args), summary: "where pods' start-up time went: per phase, slowest first" },
  owners: {
    run: (args) => runOwners(args, { stdout: process.stdout, stderr: process.stderr, signal: new AbortController().signal }),
    summary: "an object's owners and the objects it owns",
  },
};

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(14)} ${c.summary}`);
  return `usage: kubeloop <command> [flags]\n\ncommands:\n${lines.join('\n')}\n\nRun 'kubeloop <command> --help' for a command's flags.`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name ? 0 : 2;
  }
  const cmd = commands[name];
  if (!cmd) {
    console.error(`kubeloop: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  return cmd.run(rest);
}

/** Runs the command line; the exit status is set when the command ends. */
export function runCli(argv: string[]): void {
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      cliWriter(process.stderr).write(`kubeloop: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}

// Run directly (node cli-main.js); the kubeloop launcher (launcher.ts) calls runCli itself.
if (require.main === module) runCli(process.argv.slice(2));
