// The extension's load (runLoad into the tree's model) with kubeloop.treeTransfer auto, table,
// metadata and full, next to what `kubeloop load` does (full objects, parsed and counted), on the demo cluster
// over loopback, same run, same client settings. Prints wall time, bytes received and the time
// the first type reached the model, with ratios against `kubeloop load`. The demo cluster runs in a
// child process (as `npm run demo` would), so its encoding does not share this thread.
// Usage: node --import tsx bench/tree-transfer.ts [--objects 100000] [--runs 3]
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startDemoCluster } from '../src/demo';
import { generateObjects } from '../src/demo/generator';
import { KubeClient } from '../src/core/kube/client';
import { loadKubeContext } from '../src/core/kube/config/kubeconfig';
import { ClusterLoader } from '../src/core/loader';
import { TimelineStore } from '../src/core/timeline/store';
import { silentLog } from '../src/app/logger';
import { runLoad } from '../src/app/load/loadRunner';
import { ResourceModel } from '../src/app/model/resourceModel';
import { defaultSettings, type TreeTransfer } from '../src/app/settings';
import { benchArg } from './measure';

const OBJECTS = Number(benchArg('--objects', '100000'));
const RUNS = Number(benchArg('--runs', '3'));

interface Run {
  ms: number;
  /** CPU time of this process (every thread) during the load: steadier than wall time on a shared machine. */
  cpuMs: number;
  bytes: number;
  firstTypeMs: number;
  objects: number;
}

/** The child: a demo cluster with the objects; prints its kubeconfig path, stops when stdin closes. */
async function serve(): Promise<void> {
  const cluster = await startDemoCluster({ kubelet: false });
  generateObjects(cluster.store, { objects: OBJECTS, seed: 11 });
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-bench-tree-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await cluster.writeKubeconfig(kubeconfig);
  process.stdout.write(`READY ${kubeconfig}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void cluster.stop().then(() => process.exit(0)));
}

function cpuSince(c0: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(c0);
  return (d.user + d.system) / 1000;
}

async function main(): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, '--serve', '--objects', String(OBJECTS)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const kubeconfig = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /READY (\S+)\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`demo cluster exited (${code}) before it was ready`)));
  });
  try {
    const connect = () => KubeClient.connect(loadKubeContext({ kubeconfig }));
    const cli = async (): Promise<Run> => {
      const client = await connect();
      try {
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        let first = 0;
        const loader = new ClusterLoader(client, { transform: () => undefined });
        const summary = await loader.start({ onResult: () => (first ||= performance.now() - t0) }).done;
        return { ms: performance.now() - t0, cpuMs: cpuSince(c0), bytes: client.transport.stats.bytesReceived, firstTypeMs: first, objects: summary.objects };
      } finally {
        client.close();
      }
    };
    const tree = async (treeTransfer: TreeTransfer): Promise<Run> => {
      const client = await connect();
      try {
        const model = new ResourceModel();
        let first = 0;
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        // the first type's objects in the model (a bucket appears), not the reset of a new load
        model.onChange((c) => {
          if (c.kind === 'bucket') first ||= performance.now() - t0;
        });
        const { summary } = await runLoad({
          client,
          contextName: 'bench',
          settings: { ...defaultSettings(), treeTransfer },
          model,
          timeline: new TimelineStore(),
          log: silentLog,
          origin: 0,
          loadId: `bench-${treeTransfer}`,
          signal: new AbortController().signal,
        });
        return { ms: performance.now() - t0, cpuMs: cpuSince(c0), bytes: client.transport.stats.bytesReceived, firstTypeMs: first, objects: summary.objects };
      } finally {
        client.close();
      }
    };
    const contenders: [string, () => Promise<Run>][] = [
      ['kubeloop load (full)', cli],
      ['tree, auto', () => tree('auto')],
      ['tree, table', () => tree('table')],
      ['tree, metadata', () => tree('metadata')],
      ['tree, full', () => tree('full')],
    ];
    const best = new Map<string, Run>();
    for (let r = 0; r < RUNS; r++) {
      for (const [name, run] of contenders) {
        const got = await run();
        const prev = best.get(name);
        if (!prev || got.ms < prev.ms) best.set(name, got);
      }
    }
    const base = best.get('kubeloop load (full)')!;
    console.log(`demo cluster, ${OBJECTS} generated objects, loopback, best of ${RUNS}`);
    console.log('contender               objects     ms   x cli  cpu ms   x cli     MB  bytes x cli  first type ms');
    for (const [name, r] of best) {
      console.log(
        `${name.padEnd(22)} ${String(r.objects).padStart(8)} ${r.ms.toFixed(0).padStart(6)} ${(r.ms / base.ms).toFixed(2).padStart(6)}x ${r.cpuMs.toFixed(0).padStart(7)} ${(r.cpuMs / base.cpuMs).toFixed(2).padStart(6)}x ${(r.bytes / 1e6).toFixed(1).padStart(6)} ${(r.bytes / base.bytes).toFixed(2).padStart(10)}x ${r.firstTypeMs.toFixed(0).padStart(12)}`,
      );
    }
  } finally {
    child.stdin.end();
  }
}

(process.argv.includes('--serve') ? serve() : main()).catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
