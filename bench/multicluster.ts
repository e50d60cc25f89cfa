// `npm run bench -- multicluster`: several clusters in one `kubeloop load` (issue 13). Every figure
// is measured in the same run: 5 demo clusters x 20,000 objects loaded in one run, against the same 5
// loaded one after another, and against one cluster of 100,000 objects; then the 5 again with a
// sixth context whose server accepts connections and never answers.
// The five are served by one demo-cluster process (`--clusters 5`), as the one of 100,000 is: both
// contenders then share the machine's two cores with one server process, not five against one
// (`--server-per-cluster` runs one process per cluster, as before).
// Usage: node --import tsx bench/multicluster.ts [--clusters 5] [--objects 20000] [--repeats 3] [--server-per-cluster]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { benchArg, printChecks, printTable, ratio, runInterleaved, type Check, type Measurement } from './measure';
import { startDemoProcess } from './demo';
import { mergeKubeconfigs } from '../test/support/kubeconfigs';

const clusters = Number(benchArg('--clusters', '5'));
const objects = Number(benchArg('--objects', '20000'));
const repeats = Number(benchArg('--repeats', '3'));
const outFile = benchArg('--json', '.bench/multicluster.json');
const serverPerCluster = process.argv.includes('--server-per-cluster');

interface ClusterJson {
  context: string;
  outcome: string;
  objects: number;
  durationMs: number;
  firstResultMs: number | null;
  settledMs: number;
  unreachable: boolean;
  error?: string;
}

function clustersOf(m: Measurement): ClusterJson[] {
  try {
    return JSON.parse(m.stdout.trim().split('\n').pop() ?? '').clusters ?? [];
  } catch {
    return [];
  }
}

const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main() {
  console.log(`\n## ${clusters} clusters x ${objects.toLocaleString('en')} objects, against 1 x ${(clusters * objects).toLocaleString('en')}`);
  const servers: Awaited<ReturnType<typeof startDemoProcess>>[] = [];
  if (serverPerCluster) for (let i = 0; i < clusters; i++) servers.push(await startDemoProcess(objects, 21 + i, ['--no-kubelet']));
  else servers.push(await startDemoProcess(objects, 21, ['--no-kubelet', '--clusters', String(clusters)]));
  // Each small cluster's entry: its own file, or its context in the one process's file.
  const small = Array.from({ length: clusters }, (_, i) =>
    serverPerCluster ? { file: servers[i]!.kubeconfig } : { file: servers[0]!.kubeconfig, context: `kubeloop-demo-${i + 1}` },
  );
  console.log(serverPerCluster ? `(${clusters} server processes)` : `(the ${clusters} served by one process, as the 1 is)`);
  const big = await startDemoProcess(clusters * objects, 7, ['--no-kubelet']);
  const held: Socket[] = [];
  const hung = createServer((s) => held.push(s));
  await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-bench-multi-'));
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    const names = small.map((_, i) => `c${i + 1}`);
    mergeKubeconfigs(
      [
        ...small.map((d, i) => ({ name: names[i]!, ...d })),
        { name: 'big', file: big.kubeconfig },
        { name: 'hung', server: `https://127.0.0.1:${(hung.address() as { port: number }).port}` },
      ],
      kubeconfig,
    );
    const node = process.execPath;
    const load = ['dist/cli.js', 'load', '--kubeconfig', kubeconfig, '--json'];
    const ctx = (ns: string[]) => ns.flatMap((n) => ['--context', n]);
    const one = (n: string) => `${node} ${load.join(' ')} --context ${n} >/dev/null`;
    // One unmeasured load of every cluster first: the servers' code warmed up and every
    // contender starting from the same discovery cache (kubectl's 6-hour cache, on by default).
    await runInterleaved(1, { warm: { name: 'warm-up', cmd: node, args: [...load, ...ctx([...names, 'big'])] } });
    const results = await runInterleaved(
      repeats,
      {
        multi: { name: `KubeLoop, ${clusters} clusters in one run`, cmd: node, args: [...load, ...ctx(names)] },
        big: { name: `KubeLoop, 1 cluster of ${(clusters * objects).toLocaleString('en')}`, cmd: node, args: [...load, '--context', 'big'] },
        sequential: { name: `KubeLoop, the ${clusters} one after another`, cmd: 'sh', args: ['-c', names.map(one).join(' && ')] },
        hung: { name: `KubeLoop, ${clusters} clusters + 1 that never answers`, cmd: node, args: [...load, ...ctx([...names, 'hung'])] },
      },
      { hung: 2 },
    );
    printTable(results, results.multi);
    const multi = clustersOf(results.multi);
    const withHung = clustersOf(results.hung);
    const live = (cs: ClusterJson[]) => cs.filter((c) => c.context !== 'hung');
    const firstMax = Math.max(...multi.map((c) => c.firstResultMs ?? Infinity));
    // Each live cluster's own time with the dead one beside it against without: the median of its
    // times over every round of each contender (one round's single sample swung by +-30 % here).
    const settledMedian = (m: { runs: Measurement[] }, context: string) =>
      medianOf(
        m.runs.flatMap((r) =>
          clustersOf(r)
            .filter((c) => c.context === context)
            .map((c) => c.settledMs),
        ),
      );
    const slowdowns = names.map((n) => settledMedian(results.hung, n) / settledMedian(results.multi, n));
    const dead = withHung.find((c) => c.context === 'hung');
    const allOk = multi.length === clusters && multi.every((c) => c.outcome === 'ok') && live(withHung).every((c) => c.outcome === 'ok');
    const checks: Check[] = [
      [
        `${clusters} x ${objects} in one run / 1 x ${clusters * objects} <= 1.3x`,
        ratio(results.multi, results.big) <= 1.3,
        ratio(results.multi, results.big).toFixed(2) + 'x',
      ],
      [
        `each cluster's first type within 300 ms of the start`,
        firstMax <= 300,
        `slowest ${firstMax} ms (${multi.map((c) => `${c.context} ${c.firstResultMs}`).join(', ')})`,
      ],
      [
        `with one cluster hanging, each other cluster's time changes by <= 10%`,
        Math.max(...slowdowns) <= 1.1,
        `worst ${Math.max(...slowdowns).toFixed(2)}x, median ${medianOf(slowdowns).toFixed(2)}x`,
      ],
      [
        `the hanging cluster is reported within 5 s`,
        !!dead && dead.unreachable && dead.settledMs <= 5000,
        dead ? `${dead.settledMs} ms: ${dead.error}` : 'missing',
      ],
      [`every live cluster loaded`, allOk, multi.map((c) => `${c.context} ${c.outcome} ${c.objects}`).join(', ')],
    ];
    printChecks(checks);
    console.log(`info: the ${clusters} one after another / in one run = ${ratio(results.sequential, results.multi).toFixed(2)}x`);
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(
      outFile,
      JSON.stringify(
        {
          clusters,
          objects,
          results: Object.fromEntries(Object.entries(results).map(([k, m]) => [k, { wallMs: m.wallMs, peakMB: m.peakMB }])),
          multi,
          withHung,
          checks,
        },
        null,
        2,
      ),
    );
    console.log(`\nresults written to ${outFile}`);
  } finally {
    held.forEach((s) => s.destroy());
    hung.close();
    rmSync(dir, { recursive: true, force: true });
    await Promise.all([...servers, big].map((d) => d.stop()));
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
