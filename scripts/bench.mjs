#!/usr/bin/env node
// `npm run bench`: builds the CLI and the peer programs, then runs every benchmark section:
//   load      the loader vs kubectl, a naive client-node list and the raw-bytes bound (issue 3)
//   syncloop  events per second through the sync loop and its heap under churn (issue 4)
//   timeline  one timeline frame with 100,000 events: layout, draw calls, hit-test, filter (issue 5)
//   podworkers  updates per second into the pod workers and how many syncs coalescing saves (issue 4)
//   apiserver  the loader vs kubectl and the peers on a real kube-apiserver + etcd (issue 6)
//   remote     the same loads through a relay adding WAN latency and a bandwidth cap; bytes each way (issue 9)
//   apicost   requests and bytes per minute `kubeloop sync` costs a real kube-apiserver with 10,000
//             pods, idle and under churn, next to a client-go-style informer floor (issue 10)
//   multicluster  5 clusters x 20,000 objects in one load vs 1 x 100,000 and vs one after another;
//             first results per cluster; a hanging cluster beside them (issue 13)
//   extension  the packaged extension in VS Code (code-server + Chromium): palette load vs the CLI and
//             the raw bound, then event-loop delay, RSS and change-to-row latency under churn (issue 14)
//   recorder  the flight recorder: CPU overhead of sync --record at 200 changes/s, bytes per event,
//             open and seek in a synthetic 24-hour recording of 100,000 objects (issue 12)
//   fidelity  the inferred sync loop against four real kubelets on the lab: lines matched per
//             scenario, lag, KubeLoop's CPU vs the kubelets', the lab's own cost (issue 40)
//   decode    CPU of the protobuf walker vs JSON.parse on real pages of pods, full and metadata-only (issue 41)
//   startup   CPU of `kubeloop startup`'s report over 100,000 pods and 500,000 Events (issue 44)
// `npm run bench -- load --sizes 10000` runs one section with its own arguments. The load, apiserver
// and extension sections write their results (machine, date, every run) to `--json FILE`; the page's
// charts are drawn from docs/bench-data/*.json by `npm run docs:charts` (scripts/bench-charts.mjs).
import { spawnSync } from 'node:child_process';
import * as esbuild from 'esbuild';

process.chdir(new URL('..', import.meta.url).pathname);
const sh = (args) => {
  const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
sh(['esbuild.config.mjs', '--production']);
await esbuild.build({
  entryPoints: ['bench/peers/naive.ts', 'bench/peers/raw.ts', 'bench/peers/decode.ts', 'bench/peers/informer.ts'],
  outdir: '.bench/peers',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  logLevel: 'warning',
});
const sections = {
  load: 'bench/main.ts',
  syncloop: 'bench/syncloop.ts',
  podworkers: 'bench/podworkers.ts',
  timeline: 'bench/timeline.ts',
  apiserver: 'bench/apiserver.ts',
  remote: 'bench/remote.ts',
  apicost: 'bench/apicost.ts',
  multicluster: 'bench/multicluster.ts',
  extension: 'bench/extension.ts',
  recorder: 'bench/recorder.ts',
  fidelity: 'bench/fidelity.ts',
  decode: 'bench/decode-protobuf.ts',
  startup: 'bench/startup.ts',
};
const [first, ...rest] = process.argv.slice(2);
if (first in sections) sh(['--expose-gc', '--import', 'tsx', sections[first], ...rest]);
else for (const file of Object.values(sections)) sh(['--expose-gc', '--import', 'tsx', file, ...process.argv.slice(2)]);
