// `npm run bench`: the loader benchmark of issue 3. Every figure is a ratio against peers measured in
// the same run on the same demo cluster, never an absolute threshold (these machines are noisy).
// Usage: node --import tsx bench/main.ts [--sizes 10000,100000] [--repeats N] [--json FILE]
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { benchArg, contenderOf, objectsOf, printChecks, printTable, ratio, runInterleaved, runN, runSizes, type Check, type Measurement } from './measure';
import { pidCpuMs } from './procCpu';
import { startDemoProcess } from './demo';
import { discoverTypes, kubectlGetAllArgs, withoutEventAlias } from './types';
import { kubectlBinary } from '../test/support/kubectl';

const arg = benchArg;
const sizes = arg('--sizes', '10000,100000').split(',').map(Number);
const repeats = Number(arg('--repeats', '3'));
const outFile = arg('--json', '.bench/load.json');
const PAGE = 500;

/** A contender's median CPU (user + system) over its runs, ms; NaN where none was measured. */
function cpuOf(m: Measurement & { runs?: Measurement[] }): number {
  const cpu = (m.runs ?? [m]).map((r) => r.cpuMs ?? NaN).sort((a, b) => a - b);
  return cpu[(cpu.length - 1) >> 1] ?? NaN;
}
const CONCURRENCY = 4;

async function benchSize(objects: number) {
  console.log(`\n## ${objects.toLocaleString('en')} objects`);
  const demo = await startDemoProcess(objects, 7, ['--no-kubelet']);
  try {
    const types = withoutEventAlias(await discoverTypes(demo.kubeconfig));
    const dir = resolve('.bench');
    mkdirSync(dir, { recursive: true });
    const typesFile = join(dir, 'types.json');
    writeFileSync(typesFile, JSON.stringify(types));
    console.log(`demo cluster ${demo.url}: ${types.length} listable resource types`);
    const node = process.execPath;
    const kl = ['dist/cli.js', 'load', '--kubeconfig', demo.kubeconfig, '--concurrency', String(CONCURRENCY), '--page-size', String(PAGE), '--json'];
    const big = objects >= 50_000;
    // The pages themselves, saved once (unmeasured) for the decode floor.
    const pagesDir = join(dir, `pages-${objects}`);
    rmSync(pagesDir, { recursive: true, force: true });
    const saved = spawnSync(node, ['.bench/peers/raw.js', demo.kubeconfig, typesFile, String(PAGE), String(CONCURRENCY), pagesDir], { encoding: 'utf8' });
    if (saved.status !== 0) throw new Error(`saving the pages failed: ${saved.stderr}`);
    // Every contender but kubectl runs round-robin so the machine's drift hits them alike. The
    // cluster's CPU is read around each run: on 2 cores a client's wall time includes waiting for it.
    const clusterCpu = () => pidCpuMs(demo.pid);
    const fast = await runInterleaved(
      repeats,
      {
        // `kubeloop load` prints counts: it receives every page of full objects and counts their
        // items without decoding them (ListOptions.countsOnly); the decode floor parses them all.
        kubeloop: { name: 'KubeLoop (full objects, counted)', cmd: node, args: kl },
        kubeloopMeta: { name: 'KubeLoop (metadata-only)', cmd: node, args: [...kl, '--metadata-only'] },
        // By default KubeLoop asks a server on this machine for no gzip (compression only costs CPU
        // on loopback, both ends sharing these cores): what asking for it anyway would cost.
        kubeloopGzip: { name: 'KubeLoop (full objects, gzip forced)', cmd: node, args: [...kl, '--compression', 'always'] },
        raw: { name: 'raw bytes bound', cmd: node, args: ['.bench/peers/raw.js', demo.kubeconfig, typesFile, String(PAGE), String(CONCURRENCY)] },
        decode: { name: 'decode floor (same pages from files, parsed)', cmd: node, args: ['.bench/peers/decode.js', pagesDir] },
        naive: { name: 'naive client-node, sequential', cmd: node, args: ['.bench/peers/naive.js', demo.kubeconfig, typesFile] },
      },
      {},
      clusterCpu,
    );
    const results = {
      ...fast,
      kubectl: await runN(
        big ? 1 : repeats,
        'kubectl v1.34 get -A -o json --chunk-size=500',
        await kubectlBinary(),
        kubectlGetAllArgs(demo.kubeconfig, types, PAGE),
        clusterCpu,
      ),
    };
    rmSync(pagesDir, { recursive: true, force: true });
    const counts = {
      kubeloop: objectsOf(results.kubeloop),
      meta: objectsOf(results.kubeloopMeta),
      naive: objectsOf(results.naive),
      decode: objectsOf(results.decode),
    };
    const base = results.kubeloop;
    printTable(results, base);
    const checks: Check[] = [
      [`kubectl / KubeLoop >= 5x`, ratio(results.kubectl, base) >= 5, ratio(results.kubectl, base).toFixed(2) + 'x'],
      [`naive / KubeLoop >= 2x`, ratio(results.naive, base) >= 2, ratio(results.naive, base).toFixed(2) + 'x'],
      [`KubeLoop / raw bytes <= 1.5x`, ratio(base, results.raw) <= 1.5, ratio(base, results.raw).toFixed(2) + 'x'],
      // of CPU, not wall time: what a loaded machine leaves comparable
      [`KubeLoop / decode floor <= 1.0x (CPU)`, cpuOf(base) / cpuOf(results.decode) <= 1.0, (cpuOf(base) / cpuOf(results.decode)).toFixed(2) + 'x'],
      [`metadata-only peak <= 400 MB`, results.kubeloopMeta.peakMB <= 400, results.kubeloopMeta.peakMB.toFixed(0) + ' MB'],
      [
        `object counts agree (KubeLoop, metadata-only, naive, decode floor)`,
        counts.kubeloop !== undefined && counts.kubeloop === counts.meta && counts.meta === counts.naive && counts.naive === counts.decode,
        JSON.stringify(counts),
      ],
    ];
    printChecks(checks, big ? '' : ' (targets are set at 100,000)');
    // Context for the raw-bytes target: how far decoding alone (no network at all) is from the bound.
    console.log(`info: decode floor / raw bytes = ${ratio(results.decode, results.raw).toFixed(2)}x`);
    console.log(`info: KubeLoop with gzip forced / without (the default here) = ${ratio(results.kubeloopGzip, base).toFixed(2)}x`);
    return {
      objects,
      types: types.length,
      counts,
      contenders: Object.fromEntries(Object.entries(results).map(([k, m]) => [k, contenderOf(m)])),
    };
  } finally {
    await demo.stop();
  }
}

runSizes(sizes, benchSize, outFile, 'load');
