/**
 * `kubeloop demo-cluster`: runs the embedded demo cluster until SIGINT/SIGTERM, then stops it
 * cleanly. Prints the URL and the kubeconfig path once the cluster is fully up (objects generated,
 * kubeconfig written), so a script may wait for the URL line and then use the kubeconfig.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startDemoCluster, type DemoCluster, type DemoClusterOptions, type DemoCRD } from '../demo';
import { renderKubeconfig, writeKubeconfigFile } from '../demo/kubeconfig';
import { parseFaultSpec } from '../demo/server/faults';
import { parseGrant } from '../demo/server/auth';
import type { ObjectStore } from '../demo/store';
import { Recording } from '../core/recorder/reader';
import { replayRecording, type ReplayTarget } from '../core/recorder/replay';
import { realClock } from '../core/clock';
import { deepEqual } from '../core/recorder/diff';
import { cliWriter } from './terminal';

const HELP = `usage: kubeloop demo-cluster [flags]

  --port P              listen on port P (default 0: any free port)
  --clusters N          serve N clusters from this process (default 1), each with its own port
                        (P, P+1, ... with --port P), seed (S, S+1, ...), --objects objects and
                        server, all in one kubeconfig as contexts kubeloop-demo-1 ... kubeloop-demo-N;
                        every other flag applies to each
  --host H              listen on host H (default 127.0.0.1)
  --objects N           generate N objects across namespaces and types (default 0)
  --profile NAME        generate a named size instead: scale-limit (5,000 nodes, 150,000 pods,
                        1,000,000 objects)
  --seed S              seed of the generator (default 1)
  --churn N             creates/updates/deletes per second after start (default 0)
  --big-namespace NS:P  one more namespace NS holding P pods, counted in --objects (a kind of
                        10,000 rows in one namespace, e.g. big:10000)
  --tls                 serve HTTPS with a self-signed certificate (trusted by the kubeconfig)
  --token T             require bearer token T (401 without it); implies --tls, since kubectl
                        sends credentials only over HTTPS
  --kubeconfig-out FILE write the kubeconfig here (default: a private temporary folder, removed on exit)
  --faults SPEC         fault rules, e.g. 'throttle,verb=list,resource=pods,times=3;latency,ms=200'
  --forbid G/R          forbid group/resource for the default user (core as /pods); repeatable
  --grant SPEC          an RBAC-style grant of a named user, USER:NAMESPACE:VERBS:GROUPS:RESOURCES
                        (NAMESPACE * = cluster-wide), e.g. alice:team-a:get,list,watch:*:*; repeatable;
                        implies --tls (its user is known by a token)
  --user NAME           write the kubeconfig for this user (default: the demo's own user); implies --tls
  --context-namespace NS  the kubeconfig context's namespace (default "default")
  --crd SPEC            serve a custom resource type: plural.group/version/Kind[/Cluster]; repeatable
  --continue-ttl MS     lifetime of continue tokens in ms (default 300000)
  --event-ttl SECONDS   Events are deleted this long after their last write, as kube-apiserver's
                        --event-ttl (default 3600; 0 = never)
  --no-kubelet          do not run the kubelet simulation
  --pull-seconds N      every image pull takes N simulated seconds, one at a time per node (default: 0.7, in parallel)
  --pull-fail-rate R    this fraction (0..1) of pods' first pull of an image fails (ErrImagePull, BackOff, retry)
  --pods-per-node N     a node takes at most N pods; a pod finding all full is Unschedulable (FailedScheduling)
                        and a node is added 20 s later, as a cluster autoscaler would (default: no limit)
  --no-controllers      do not run the controllers (deployment, replicaset, job, ..., garbage collector)
  --story               start the story in namespace "story": a Deployment that rolls 8 s after start and
                        every 45 s, a Job that completes, a CronJob every minute, the failing probe-me pod
                        (needs the kubelet and the controllers; npm run demo turns it on)
  --writers             plant misbehaving writers in namespace "writers": managers fight-a and fight-b
                        fighting over an annotation of ConfigMap contested, and looping-operator
                        rewriting ConfigMap hot 13 times a second (for kubeloop writers)
  --replay FILE         serve a flight recording (kubeloop sync --record): its first keyframe at
                        start, then its changes at the pace they were recorded (no generated objects,
                        churn, kubelet, controllers or Event TTL). Secret values stay masked
  --speed N             replay N times faster (default 1)
  --replay-wait-watches N  start the changes once N watches are open (default 0: at once)
`;

function parseCrd(spec: string): DemoCRD {
  const [pg, version, kind, scope] = spec.split('/');
  const dot = pg?.indexOf('.') ?? -1;
  if (!pg || dot <= 0 || !version || !kind) throw new Error(`--crd ${spec}: expected plural.group/version/Kind[/Cluster]`);
  return { plural: pg.slice(0, dot), group: pg.slice(dot + 1), version, kind, namespaced: scope?.toLowerCase() !== 'cluster' };
}

function parseBigNamespace(spec: string): { name: string; pods: number } {
  const m = /^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?):(\d+)$/.exec(spec);
  if (!m) throw new Error(`--big-namespace ${spec}: expected NAMESPACE:PODS, e.g. big:10000`);
  return { name: m[1]!, pods: Number(m[3]) };
}

function intFlag(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, got "${v}"`);
  return n;
}

function parseValues(args: string[]) {
  return parseArgs({
    args,
    options: {
      port: { type: 'string' },
      clusters: { type: 'string' },
      host: { type: 'string' },
      objects: { type: 'string' },
      profile: { type: 'string' },
      seed: { type: 'string' },
      churn: { type: 'string' },
      'big-namespace': { type: 'string' },
      tls: { type: 'boolean' },
      token: { type: 'string' },
      'kubeconfig-out': { type: 'string' },
      faults: { type: 'string' },
      forbid: { type: 'string', multiple: true },
      grant: { type: 'string', multiple: true },
      user: { type: 'string' },
      'context-namespace': { type: 'string' },
      crd: { type: 'string', multiple: true },
      'continue-ttl': { type: 'string' },
      'event-ttl': { type: 'string' },
      'no-kubelet': { type: 'boolean' },
      'pull-seconds': { type: 'string' },
      'pull-fail-rate': { type: 'string' },
      'pods-per-node': { type: 'string' },
      'no-controllers': { type: 'boolean' },
      story: { type: 'boolean' },
      writers: { type: 'boolean' },
      replay: { type: 'string' },
      speed: { type: 'string' },
      'replay-wait-watches': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }).values;
}

export async function runDemoCluster(args: string[]): Promise<number> {
  const values = parseValues(args);
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (values.faults) parseFaultSpec(values.faults); // report a bad spec before starting anything
  if (values.story && (values['no-kubelet'] || values['no-controllers']))
    throw new Error('--story needs the kubelet and the controllers: drop --no-kubelet / --no-controllers');
  const grants = (values.grant ?? []).map(parseGrant); // bad grants too, before anything starts
  clusterCount(values);

  // The signal handlers go in before anything starts, so a SIGTERM sent the moment the URL line is
  // read (or during start-up) is a clean stop, never Node's default kill of the process.
  const life = new AbortController();
  const handler = (sig: NodeJS.Signals) => {
    console.log(`\n${sig}: stopping the demo cluster`);
    removeHandlers();
    life.abort();
  };
  const removeHandlers = () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  console.log(values.replay ? `starting the demo cluster to replay ${values.replay}...` : `starting the demo cluster (${values.objects ?? 0} objects)...`);
  try {
    return await serve(values, grants, life);
  } catch (e) {
    if (life.signal.aborted) return 0; // a start-up cut short by the signal: nothing to report
    throw e;
  } finally {
    removeHandlers();
  }
}

type Values = ReturnType<typeof parseValues>;

/** --pull-seconds and --pull-fail-rate as the kubelet simulation's imagePulls. */
function imagePullsFlags(values: Values, seed: number): Pick<DemoClusterOptions, 'imagePulls'> {
  const secs = values['pull-seconds'] === undefined ? undefined : Number(values['pull-seconds']);
  const rate = values['pull-fail-rate'] === undefined ? undefined : Number(values['pull-fail-rate']);
  if (secs !== undefined && !(secs >= 0 && Number.isFinite(secs)))
    throw new Error(`--pull-seconds must be a number of seconds, got "${values['pull-seconds']}"`);
  if (rate !== undefined && !(rate >= 0 && rate <= 1)) throw new Error(`--pull-fail-rate must be between 0 and 1, got "${values['pull-fail-rate']}"`);
  if (secs === undefined && rate === undefined) return {};
  return { imagePulls: { ...(secs !== undefined ? { defaultSeconds: secs } : {}), ...(rate !== undefined ? { failRate: rate } : {}), seed } };
}

function clusterCount(values: Values): number {
  const count = intFlag(values.clusters, 'clusters', 1);
  if (count < 1) throw new Error('--clusters must be at least 1');
  if (count > 1 && values.replay) throw new Error('--replay serves one recording: it cannot be used with --clusters');
  return count;
}

/** Starts the cluster, prints where it serves, and stops it once a signal aborted `life`. */
async function serve(values: Values, grants: ReturnType<typeof parseGrant>[], life: AbortController): Promise<number> {
  const port = intFlag(values.port, 'port', 0);
  const replayFile = values.replay;
  const speed = values.speed === undefined ? 1 : Number(values.speed);
  if (!(speed > 0) || !Number.isFinite(speed)) throw new Error(`--speed must be a positive number, got "${values.speed}"`);
  const waitWatches = intFlag(values['replay-wait-watches'], 'replay-wait-watches', 0);
  if (!replayFile && (values.speed !== undefined || waitWatches)) throw new Error('--speed and --replay-wait-watches need --replay FILE');
  const count = clusterCount(values);
  const recording = replayFile ? await Recording.open(replayFile, life.signal) : undefined;
  const seed = intFlag(values.seed, 'seed', 1);
  const clusters: DemoCluster[] = [];
  let privateDir: string | undefined;
  const stopAll = async () => {
    recording?.close();
    await Promise.all(clusters.map((c) => c.stop()));
    if (privateDir) await rm(privateDir, { recursive: true, force: true });
  };
  try {
    // What every cluster shares, parsed once; each differs by its name, port and seed only.
    const shared: DemoClusterOptions = {
      host: values.host,
      // a token is sent only over HTTPS (kubectl's rule, and KubeLoop's): a token, a grant or a named user turns TLS on
      tls: values.tls || values.token !== undefined || grants.length > 0 || values.user !== undefined,
      token: values.token,
      objects: recording ? 0 : intFlag(values.objects, 'objects', 0),
      ...(values.profile !== undefined && !recording ? { profile: values.profile } : {}),
      churnPerSecond: recording ? 0 : intFlag(values.churn, 'churn', 0),
      ...(values['big-namespace'] !== undefined ? { bigNamespace: parseBigNamespace(values['big-namespace']) } : {}),
      faults: values.faults,
      forbidden: values.forbid,
      grants,
      crds: (values.crd ?? []).map(parseCrd),
      continueTtlMs: values['continue-ttl'] !== undefined ? intFlag(values['continue-ttl'], 'continue-ttl', 0) : undefined,
      eventTtlMs: recording ? 0 : values['event-ttl'] !== undefined ? intFlag(values['event-ttl'], 'event-ttl', 0) * 1000 : undefined,
      kubelet: !recording && !values['no-kubelet'],
      ...imagePullsFlags(values, seed),
      ...(values['pods-per-node'] !== undefined
        ? { capacity: { podsPerNode: intFlag(values['pods-per-node'], 'pods-per-node', 0), addNodeAfterMs: 20_000 } }
        : {}),
      controllers: !recording && !values['no-controllers'],
      story: !recording && values.story === true,
      writers: !recording && values.writers === true,
      generatedNow: Date.now(),
      signal: life.signal,
    };
    for (let i = 0; i < count && !life.signal.aborted; i++) {
      const own = { ...(count > 1 ? { name: `kubeloop-demo-${i + 1}` } : {}), port: port === 0 ? 0 : port + i, seed: seed + i };
      clusters.push(await startDemoCluster({ ...shared, ...own }));
    }
  } catch (e) {
    await stopAll(); // one that could not start (its port taken, say) stops those already serving
    throw e;
  }
  const cluster = clusters[0];
  if (!cluster || life.signal.aborted) {
    await stopAll(); // stopped while starting: no URL line for a server that is already gone
    return 0;
  }
  const kubeconfigFor = {
    ...(values.user ? { user: values.user } : {}),
    ...(values['context-namespace'] ? { namespace: values['context-namespace'] } : {}),
  };
  // Without --kubeconfig-out: a folder of its own (mkdtemp: a name no one can guess and make first,
  // mode 0700), removed when the cluster stops. A name from the pid could be made in advance by
  // another local user, who would then own the folder the kubeconfig (a token) is written into.
  let kubeconfigPath: string;
  if (values['kubeconfig-out']) kubeconfigPath = resolve(values['kubeconfig-out']);
  else {
    privateDir = await mkdtemp(join(tmpdir(), 'kubeloop-demo-'));
    kubeconfigPath = join(privateDir, 'kubeconfig');
  }
  await writeKubeconfigFile(kubeconfigPath, renderKubeconfig(clusters.map((c) => c.kubeconfigInput(kubeconfigFor))));
  if (life.signal.aborted) {
    await stopAll();
    return 0;
  }
  // Whoever read our output may be gone (`... | head -3`): a closed pipe must not kill the server
  // with an unhandled EPIPE, nor stop it from shutting down cleanly on a signal.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
  });
  let replayDone: Promise<unknown> | undefined;
  if (recording) {
    const replay = replayRecording(recording, storeTarget(cluster.store), life.signal, {
      speed,
      ...(waitWatches
        ? {
            startWhen: async (signal: AbortSignal) => {
              // A state, not a time: the first change waits until the clients are watching.
              while (cluster.stats.openWatches < waitWatches) await realClock.sleep(20, signal);
            },
          }
        : {}),
    });
    await replay.ready;
    replayDone = replay.done.then(
      (s) => console.log(`replay: done (${s.applied} changes applied, ${s.skipped} skipped)`),
      (e: Error) => cliWriter(process.stderr).write(`replay: ${e.message}\n`),
    );
    const { start, end } = recording.range;
    console.log(`replay:       ${replayFile} (${new Date(start).toISOString()} .. ${new Date(end).toISOString()}, speed ${speed})`);
  }
  const objectsIn = (c: DemoCluster) => c.store.types().reduce((n, t) => n + c.store.count(t.group, t.resource), 0);
  if (count === 1) console.log(`demo cluster: ${cluster.url}`);
  else clusters.forEach((c, i) => console.log(`demo cluster: ${c.url} (context kubeloop-demo-${i + 1}, ${objectsIn(c)} objects)`));
  console.log(`kubeconfig:   ${kubeconfigPath}`);
  console.log(`objects:      ${clusters.reduce((n, c) => n + objectsIn(c), 0)}`);
  if (values.writers)
    console.log('writers:      namespace "writers": fight-a and fight-b fight over configmap contested, looping-operator hot-loops on configmap hot');
  if (values.story) console.log('story:        namespace "story": deployment shop rolls in 8 s, job report, cronjob tick, pod probe-me');
  console.log('Press Ctrl-C to stop.');

  if (!life.signal.aborted) await once(life.signal, 'abort');
  await replayDone;
  await stopAll();
  return 0;
}

/** The demo store as a replay's target: whole objects in, the store's own resourceVersions out. */
function storeTarget(store: ObjectStore): ReplayTarget {
  return {
    put(group, resource, namespace, o) {
      const meta = { ...(o.metadata as Record<string, unknown>) };
      delete meta.resourceVersion;
      delete meta.uid;
      delete meta.creationTimestamp;
      delete meta.generation;
      const obj = { ...o, metadata: meta } as Parameters<ObjectStore['create']>[2];
      const old = store.get(group, resource, namespace, obj.metadata.name);
      if (!old) return void store.create(group, resource, obj);
      // The status subresource's types keep status on a plain update: status goes by its own update.
      const statusSub = store.type(group, resource)?.subresources?.includes('status') ?? false;
      const sameStatus = deepEqual(old.status, obj.status);
      const { status: _s, ...restNew } = obj;
      const { status: _o, ...restOld } = old;
      const sameRest = deepEqual({ ...restOld, metadata: stripMeta(restOld.metadata) }, { ...restNew, metadata: stripMeta(restNew.metadata) });
      if (!statusSub || !sameRest || sameStatus) store.update(group, resource, obj);
      if (statusSub && !sameStatus) store.update(group, resource, obj, { subresource: 'status' });
    },
    remove(group, resource, namespace, name) {
      store.delete(group, resource, namespace, name);
    },
  };
}

function stripMeta(m: Record<string, unknown>): Record<string, unknown> {
  const { resourceVersion: _r, uid: _u, creationTimestamp: _c, generation: _g, ...rest } = m;
  return rest;
}
