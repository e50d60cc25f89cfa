// Real-server section of `npm run bench` (issue 6): the loader against a real kube-apiserver v1.36
// with etcd 3.6 (built by scripts/build-controlplane.sh, started by lab/controlplane.ts),
// next to kubectl v1.34 and the other peers of bench/main.ts, all reading the same objects. As in
// bench/main.ts every figure is a ratio against peers measured in the same run: on this 2-core
// machine the apiserver and etcd share the CPU with the client being measured, so wall times say
// as much about the server as about the client.
// Usage: node --expose-gc --import tsx bench/apiserver.ts [--sizes 5000,20000] [--repeats N] [--json FILE]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { benchArg, contenderOf, objectsOf, printChecks, printTable, ratio, runN, runSizes } from './measure';
import { discoverTypes, kubectlGetAllArgs, listPath, withoutEventAlias } from './types';
import { kubectlBinary } from '../test/support/kubectl';
import { mapLimit } from '../test/apiserver/support';
import { startSeededControlPlane } from './realserver';

const arg = benchArg;
const sizes = arg('--sizes', '5000,20000').split(',').map(Number);
const repeats = Number(arg('--repeats', '3'));
const outFile = arg('--json', '.bench/apiserver.json');
const PAGE = 500;
const CONCURRENCY = 4;

async function benchSize(objects: number) {
  console.log(`\n## about ${objects.toLocaleString('en')} objects on a real kube-apiserver`);
  const server = await startSeededControlPlane(objects);
  const { cp, api } = server;
  try {
    const types = withoutEventAlias(await discoverTypes(cp.kubeconfigPath));
    const dir = resolve('.bench');
    mkdirSync(dir, { recursive: true });
    const typesFile = join(dir, 'apiserver-types.json');
    writeFileSync(typesFile, JSON.stringify(types));
    // What the server holds, by a plain unpaged GET per type: every contender must count the same.
    const counts = await mapLimit(types, 8, async (t) => (await api.list(listPath(t))).items.length);
    const onServer = counts.reduce((a, b) => a + b, 0);
    console.log(`${cp.server}: ${types.length} listable resource types, ${onServer.toLocaleString('en')} objects`);

    const node = process.execPath;
    const kl = ['dist/cli.js', 'load', '--kubeconfig', cp.kubeconfigPath, '--concurrency', String(CONCURRENCY), '--page-size', String(PAGE), '--json'];
    const results = {
      kubeloop: await runN(repeats, 'KubeLoop (full objects)', node, kl),
      kubeloopMeta: await runN(repeats, 'KubeLoop (metadata-only)', node, [...kl, '--metadata-only']),
      raw: await runN(repeats, 'raw bytes bound', node, ['.bench/peers/raw.js', cp.kubeconfigPath, typesFile, String(PAGE), String(CONCURRENCY)]),
      naive: await runN(repeats, 'naive client-node, sequential', node, ['.bench/peers/naive.js', cp.kubeconfigPath, typesFile]),
      kubectl: await runN(repeats, 'kubectl v1.34 get -A -o json --chunk-size=500', await kubectlBinary(), kubectlGetAllArgs(cp.kubeconfigPath, types, PAGE)),
    };
    const seen = { server: onServer, kubeloop: objectsOf(results.kubeloop), meta: objectsOf(results.kubeloopMeta), naive: objectsOf(results.naive) };
    const base = results.kubeloop;
    printTable(results, base);
    printChecks([
      ['kubectl / KubeLoop >= 2x', ratio(results.kubectl, base) >= 2, `${ratio(results.kubectl, base).toFixed(2)}x`],
      ['KubeLoop / raw bytes <= 1.5x', ratio(base, results.raw) <= 1.5, `${ratio(base, results.raw).toFixed(2)}x`],
      [
        "every count equals the server's (plain GET per type)",
        seen.kubeloop === onServer && seen.meta === onServer && seen.naive === onServer,
        JSON.stringify(seen),
      ],
    ]);
    return {
      objects: onServer,
      created: server.created,
      createPerSecond: server.createPerSecond,
      types: types.length,
      counts: seen,
      contenders: Object.fromEntries(Object.entries(results).map(([k, m]) => [k, contenderOf(m)])),
    };
  } finally {
    await server.stop();
  }
}

runSizes(sizes, benchSize, outFile, 'apiserver');
