/**
 * Shared set-up for the demo cluster's integration tests: a started cluster with its kubeconfig
 * written to a temporary folder, and kubectl bound to that kubeconfig.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoCluster, type DemoCluster, type DemoClusterOptions } from '../../src/demo';
import type { DemoObject } from '../../src/demo/store';
import { runKubectl, spawnKubectl, type KubectlResult } from '../support/kubectl';

export interface TestCluster {
  cluster: DemoCluster;
  dir: string;
  kubeconfig: string;
  kubectl(args: string[], input?: string): Promise<KubectlResult>;
  /** kubectl that must succeed; returns stdout. */
  kubectlOk(args: string[], input?: string): Promise<string>;
  spawnKubectl(args: string[]): ReturnType<typeof spawnKubectl>;
  close(): Promise<void>;
}

export async function startTestCluster(opts: DemoClusterOptions = {}): Promise<TestCluster> {
  const cluster = await startDemoCluster({ kubelet: false, ...opts });
  const dir = await mkdtemp(join(tmpdir(), 'kubeloop-demo-test-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await cluster.writeKubeconfig(kubeconfig);
  const kubectl = (args: string[], input?: string) => runKubectl(args, { kubeconfig, input });
  return {
    cluster,
    dir,
    kubeconfig,
    kubectl,
    async kubectlOk(args, input) {
      const r = await kubectl(args, input);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}):\n${r.stderr}`);
      return r.stdout;
    },
    spawnKubectl: (args) => spawnKubectl(args, { kubeconfig }),
    async close() {
      await cluster.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function configMap(ns: string, name: string, data: Record<string, string> = {}, labels?: Record<string, string>): DemoObject {
  const o: DemoObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data };
  if (labels) o.metadata.labels = labels;
  return o;
}

export function namespace(name: string): DemoObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

/** Fetch against the cluster (plain HTTP), with JSON parsing of the answer. */
export async function api(
  cluster: DemoCluster,
  path: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const r = await fetch(`${cluster.url}${path}`, { ...init, headers, body });
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: r.status, body: parsed, headers: r.headers };
}
