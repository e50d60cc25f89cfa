/**
 * The Kubernetes extension's (ms-kubernetes-tools.vscode-kubernetes-tools) published API, as far as
 * KubeLoop reads it, and the rules for following it. No 'vscode' import: the glue
 * (kubernetesExtension.ts) hands in what it read.
 *
 * The shape is the extension's contract (vscode-kubernetes-tools-api, src/api/contract): its
 * `activate()` returns an API broker, `broker.get(component, version)` returns
 * `{ available: true, api }` or `{ available: false, reason }`. The configuration component has
 * versions `v1` (getKubeconfigPath) and `v1_1` (getKubeconfigPath, onDidChangeKubeconfigPath,
 * onDidChangeContext, and in newer releases onDidChangeNamespace). Its settings live in the
 * `vs-kubernetes` section under the keys `vs-kubernetes.kubeconfig` (the kubeconfig in use) and
 * `vs-kubernetes.knownKubeconfigs` (the files the user has switched between).
 *
 * Guarantees: nothing here throws on a foreign or malformed value (another extension's API is input
 * like any other: a missing member means "not offered"); an explicit `kubeloop.kubeconfig` always
 * wins over anything followed.
 *
 * The API's path needs the user's word when their own setup does not name it: the Kubernetes
 * extension reads `vs-kubernetes.kubeconfig` from a workspace's settings too, so a cloned
 * repository could choose, through it, a kubeconfig whose exec plugin KubeLoop would run. A path
 * is the user's own when it is their user-scope `vs-kubernetes.kubeconfig` or one of their
 * `knownKubeconfigs`, or a file KubeLoop reads anyway ($KUBECONFIG's, else ~/.kube/config); any
 * other is followed only once the user said so (remembered per path), and never in an untrusted
 * window (workspace trust), where only the user's own settings are followed.
 */
import { resolve } from 'node:path';

export const KUBERNETES_EXTENSION_ID = 'ms-kubernetes-tools.vscode-kubernetes-tools';
export const KUBERNETES_SETTINGS_SECTION = 'vs-kubernetes';
const KUBECONFIG_KEY = 'vs-kubernetes.kubeconfig';
export const KNOWN_KUBECONFIGS_KEY = 'vs-kubernetes.knownKubeconfigs';

/** vscode.Event, without importing 'vscode'. */
export type ApiEvent<T> = (listener: (e: T) => unknown) => { dispose(): unknown };

export type KubeconfigPath = { readonly pathType: 'host'; readonly hostPath: string } | { readonly pathType: 'wsl'; readonly wslPath: string };

type ApiResult<T> = { readonly available: true; readonly api: T } | { readonly available: false; readonly reason: string };

interface ApiBroker {
  get(component: string, version: string): ApiResult<unknown>;
}

/** What KubeLoop uses of the configuration component (v1_1 has all of it; v1 only the path). */
export interface KubernetesConfiguration {
  version: 'v1_1' | 'v1';
  getKubeconfigPath(): KubeconfigPath | undefined;
  onDidChangeKubeconfigPath?: ApiEvent<KubeconfigPath>;
  onDidChangeContext?: ApiEvent<string | null>;
  onDidChangeNamespace?: ApiEvent<string>;
}

const isFn = (v: unknown): v is (...a: unknown[]) => unknown => typeof v === 'function';

/**
 * The configuration API from what the extension's activate() returned: v1_1 when offered, else v1;
 * undefined when the broker offers neither (or is not a broker at all).
 */
export function configurationApi(broker: unknown): KubernetesConfiguration | undefined {
  if (!broker || typeof broker !== 'object' || !isFn((broker as ApiBroker).get)) return undefined;
  for (const version of ['v1_1', 'v1'] as const) {
    let r: ApiResult<unknown> | undefined;
    try {
      r = (broker as ApiBroker).get('configuration', version);
    } catch {
      continue;
    }
    if (!r || r.available !== true || !r.api || typeof r.api !== 'object') continue;
    const api = r.api as Record<string, unknown>;
    if (!isFn(api.getKubeconfigPath)) continue;
    const event = <T>(name: string): ApiEvent<T> | undefined => (isFn(api[name]) ? (api[name] as ApiEvent<T>).bind(api) : undefined);
    return {
      version,
      getKubeconfigPath: () => {
        try {
          return (api.getKubeconfigPath as () => KubeconfigPath | undefined).call(api);
        } catch {
          return undefined;
        }
      },
      ...(version === 'v1_1'
        ? {
            onDidChangeKubeconfigPath: event<KubeconfigPath>('onDidChangeKubeconfigPath'),
            onDidChangeContext: event<string | null>('onDidChangeContext'),
            onDidChangeNamespace: event<string>('onDidChangeNamespace'),
          }
        : {}),
    };
  }
  return undefined;
}

/**
 * A path KubeLoop can open, from the API's answer: a host path (a WSL path means the extension runs
 * kubectl inside WSL, whose files this extension host cannot read by that name: not followed).
 */
export function hostPath(p: unknown): string | undefined {
  if (!p || typeof p !== 'object') return undefined;
  const k = p as { pathType?: unknown; hostPath?: unknown };
  return k.pathType === 'host' && typeof k.hostPath === 'string' && k.hostPath.trim() !== '' ? k.hostPath.trim() : undefined;
}

/** The Kubernetes extension's own settings, read from the `vs-kubernetes` section (as that extension reads them). */
export function kubernetesSettings(section: unknown): { kubeconfig?: string; known: string[] } {
  const s = section && typeof section === 'object' ? (section as Record<string, unknown>) : {};
  const kc = typeof s[KUBECONFIG_KEY] === 'string' ? (s[KUBECONFIG_KEY] as string).trim() : '';
  const known = Array.isArray(s[KNOWN_KUBECONFIGS_KEY])
    ? (s[KNOWN_KUBECONFIGS_KEY] as unknown[]).filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim())
    : [];
  return { ...(kc ? { kubeconfig: kc } : {}), known: [...new Set(known)] };
}

interface FollowInput {
  /** The `kubeloop.followKubernetesExtension` setting. */
  follow: boolean;
  /** `kubeloop.kubeconfig` ('' = unset). */
  kubeloopKubeconfig: string;
  /** `kubeloop.context` ('' = unset). */
  kubeloopContext: string;
  /** The path the extension's configuration API reports (undefined: not installed, not active, or a WSL path). */
  apiPath?: string;
  /** `vs-kubernetes.kubeconfig` and `vs-kubernetes.knownKubeconfigs`. */
  settings: { kubeconfig?: string; known: string[] };
  /** The context the extension last switched to (its onDidChangeContext), if any since start. */
  context?: string;
  /** Workspace trust: false in a Restricted Mode window. Default true. */
  trusted?: boolean;
  /** Kubeconfig files KubeLoop reads without any setting ($KUBECONFIG's, else ~/.kube/config). */
  defaults?: readonly string[];
  /** The user's answers about API paths their own setup does not name (see above). */
  answers?: Readonly<Record<string, FollowAnswer>>;
}

export type FollowAnswer = 'follow' | 'refuse';

export interface Followed {
  kubeconfig?: string;
  context?: string;
  /** Where the kubeconfig came from, for the log ("vs-kubernetes.kubeconfig", ...). */
  from?: string;
  /** The API's path, not followed until the user says so (never set in an untrusted window). */
  unconfirmed?: string;
}

/** The user's own kubeconfig files (see above), for comparison with the API's path. */
function ownFiles(i: FollowInput): Set<string> {
  return new Set([i.settings.kubeconfig, ...i.settings.known, ...(i.defaults ?? [])].filter((p): p is string => !!p).map((p) => resolve(p)));
}

/**
 * What KubeLoop takes from the Kubernetes extension, applied only where KubeLoop's own setting is
 * unset. The kubeconfig: the API's path (what that extension actually uses), else
 * `vs-kubernetes.kubeconfig` (its active file, when its API gives none). `knownKubeconfigs`
 * never chooses a file: it is the list the user switches between, and the Kubernetes extension
 * itself uses $KUBECONFIG or ~/.kube/config while none of them is active. The context: the one the
 * extension switched to, unless `kubeloop.context` is set. An API path that is not the user's own
 * and not yet answered is `unconfirmed`, and the settings' file is followed meanwhile.
 */
export function followed(i: FollowInput): Followed {
  if (!i.follow) return {};
  const out: Followed = {};
  if (!i.kubeloopKubeconfig) {
    const api = i.apiPath && i.trusted !== false ? i.apiPath : undefined;
    const answer = api ? i.answers?.[resolve(api)] : undefined;
    if (api && (answer === 'follow' || ownFiles(i).has(resolve(api)))) Object.assign(out, { kubeconfig: api, from: 'the Kubernetes extension' });
    else {
      if (api && answer !== 'refuse') out.unconfirmed = api;
      if (i.settings.kubeconfig) Object.assign(out, { kubeconfig: i.settings.kubeconfig, from: KUBECONFIG_KEY });
    }
  }
  if (!i.kubeloopContext && i.context) out.context = i.context;
  return out;
}
