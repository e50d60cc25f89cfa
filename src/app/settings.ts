/**
 * The extension's settings: their schema (the single source for package.json's
 * `contributes.configuration`, which a unit test compares against it) and their validation.
 * No 'vscode' import: the glue passes in a getter over `workspace.getConfiguration('kubeloop')`.
 *
 * Guarantee: `readSettings` always returns a complete, valid `KubeLoopSettings`. An invalid value
 * never reaches the loader or the sync loop; it is replaced by the default and named in `problems`,
 * in words a user can act on.
 */

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warning', 'error', 'off'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

/** How the tree's loads fetch each type (kubeloop.treeTransfer); see app/load/transfer.ts. */
export const TREE_TRANSFERS = ['auto', 'table', 'metadata', 'full'] as const;
export type TreeTransfer = (typeof TREE_TRANSFERS)[number];

export interface KubeLoopSettings {
  kubeconfig: string;
  context: string;
  /** Contexts shown beside the current one, each loaded when opened (see app/contexts). */
  contexts: string[];
  concurrency: number;
  pageSize: number;
  requestTimeoutSeconds: number;
  metadataOnly: boolean;
  treeTransfer: TreeTransfer;
  discoveryCache: boolean;
  namespaces: string[];
  includeTypes: string[];
  excludeTypes: string[];
  syncPeriodSeconds: number;
  housekeepingPeriodSeconds: number;
  logLevel: LogLevelName;
  followKubernetesExtension: boolean;
  /** The flight recorder's bounds (Start Recording): its files together, and the history kept. */
  'recording.maxMB': number;
  'recording.maxHours': number;
  /** Where Start Recording's save dialog opens; empty: KubeLoop's global storage (liveRecording.ts recordingsFolder). */
  'recording.folder': string;
  /**
   * Whether the user set `kubeloop.concurrency` (any scope; WorkspaceConfiguration.inspect() tells a
   * value set from the default). false: the loader picks the pool size from the measured RTT
   * (core/loader/autoConcurrency.ts) and `concurrency` is only the base it starts from. Unknown
   * (undefined): `concurrency` is used exactly.
   */
  concurrencyChosen?: boolean;
}

/** The keys that are VS Code settings (concurrencyChosen is derived, not a setting). */
export type SettingKey = Exclude<keyof KubeLoopSettings, 'concurrencyChosen'>;

type IntSpec = { type: 'integer'; default: number; minimum: number; maximum: number; description: string };
type BoolSpec = { type: 'boolean'; default: boolean; description: string };
type ListSpec = { type: 'array'; default: string[]; itemPattern: string; itemHint: string; description: string; scope?: 'machine' };
type EnumSpec = { type: 'string'; default: string; enum: readonly string[]; description: string };
/**
 * A free-form string. `machine` scope: only user (or remote) settings may set it, never a workspace's
 * .vscode/settings.json — a kubeconfig can name an exec plugin, so a cloned repository must not be able
 * to point the extension at a kubeconfig (and a command) of its choosing.
 */
type StringSpec = { type: 'string'; default: string; description: string; scope: 'machine'; check?: (v: string) => string | undefined };
export type SettingSpec = IntSpec | BoolSpec | ListSpec | EnumSpec | StringSpec;

// A namespace name is a DNS-1123 label.
const NAMESPACE_PATTERN = '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$';
// A resource type as kubectl spells it: plural resource, optionally `.group` (e.g. `pods`, `deployments.apps`).
const TYPE_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

/** An absolute path (or one under ~/), or empty: a path setting must not depend on the folder VS Code happens to run in. */
function absoluteOrEmpty(v: string): boolean {
  return v === '' || v.startsWith('/') || v.startsWith('~/') || /^[A-Za-z]:[\\/]/.test(v) || v.startsWith('\\\\');
}

function checkKubeconfigPath(v: string): string | undefined {
  return absoluteOrEmpty(v) ? undefined : 'must be an absolute path (or start with ~/), or empty for $KUBECONFIG / ~/.kube/config';
}

function checkFolderPath(v: string): string | undefined {
  return absoluteOrEmpty(v) ? undefined : 'must be an absolute path (or start with ~/), or empty for the workspace folder';
}

export const SETTINGS: { [K in SettingKey]: SettingSpec } = {
  kubeconfig: {
    type: 'string',
    default: '',
    scope: 'machine',
    check: checkKubeconfigPath,
    description: 'The kubeconfig file to use. Empty: the files in `$KUBECONFIG`, else `~/.kube/config`.',
  },
  context: {
    type: 'string',
    default: '',
    scope: 'machine',
    description: "The kubeconfig context to use (set by **KubeLoop: Select Context**). Empty: the kubeconfig's current-context.",
  },
  contexts: {
    type: 'array',
    default: [],
    // a kubeconfig context name is any string (`user@cluster`, an EKS ARN): only blanks are refused
    itemPattern: '^\\S(.*\\S)?$',
    itemHint: 'a context name of the kubeconfig',
    // like kubeloop.context: a cloned repository must not pick which of the user's contexts are connected to
    scope: 'machine',
    description:
      'Contexts of the kubeconfig to show beside the current one (set by **KubeLoop: Add Context...** and **Remove Context**). Each is its own root in the tree, loaded only when you expand it (or run **Load This Context** on it), then refreshed on its own; all share one budget of list requests. One whose cluster does not answer within 4 s shows `unreachable` with the reason on its row and is tried again by itself (5 s, 10 s, ... up to every 2 minutes).',
  },
  concurrency: {
    type: 'integer',
    default: 4,
    minimum: 1,
    maximum: 32,
    description:
      'How many list requests the cluster loader runs at once (its worker pool size), used exactly when set. Not set: chosen per load from the measured round-trip time to the cluster, 4 on a LAN and up to 16 far away (`floor(4 × (1 + RTT / 25 ms))`), so that a distant API server still works on about 4 lists at once; the log says what was chosen and why.',
  },
  pageSize: {
    type: 'integer',
    default: 500,
    minimum: 1,
    maximum: 10000,
    description: 'Items per page of a paged list (the `limit` parameter; kubectl uses 500).',
  },
  requestTimeoutSeconds: { type: 'integer', default: 30, minimum: 1, maximum: 600, description: 'Time limit for one request to the API server, in seconds.' },
  metadataOnly: {
    type: 'boolean',
    default: false,
    description:
      'Load only object metadata (PartialObjectMetadataList) for every type: rows show names, no status. The same as `kubeloop.treeTransfer`: `metadata`, and wins over it.',
  },
  treeTransfer: {
    type: 'string',
    default: 'auto',
    enum: TREE_TRANSFERS,
    description:
      "What the tree's loads fetch. `auto`: per type, the least that keeps every row right: server-side Table rows (`includeObject=Metadata`) for pods, workloads, namespaces and volumes, metadata only for built-ins whose row shows just a name, full objects for the rest (custom resources). `table`: Table rows for every type (a custom resource's row then shows no status). `metadata`: metadata only. `full`: whole objects, as `kubeloop load` does. Open Resource YAML always fetches the whole object.",
  },
  discoveryCache: {
    type: 'boolean',
    default: true,
    description:
      'Keep API discovery on disk per cluster and user for 6 hours, as kubectl does (`$XDG_CACHE_HOME/kubeloop/discovery`), so the first load of a session skips its round trips; later loads ask the cluster. Off: always ask.',
  },
  namespaces: {
    type: 'array',
    default: [],
    itemPattern: NAMESPACE_PATTERN,
    itemHint: 'a namespace name such as `default`',
    description:
      "Namespaces to load. Empty: all namespaces; a type you may not list across namespaces (403) is loaded from your kubeconfig context's `namespace` (or `default`) instead.",
  },
  includeTypes: {
    type: 'array',
    default: [],
    itemPattern: TYPE_PATTERN,
    itemHint: 'a resource type such as `pods` or `deployments.apps`',
    description: 'Resource types to load, as `resource` or `resource.group` (e.g. `pods`, `deployments.apps`). Empty: every listable type.',
  },
  excludeTypes: {
    type: 'array',
    default: [],
    itemPattern: TYPE_PATTERN,
    itemHint: 'a resource type such as `events` or `leases.coordination.k8s.io`',
    description: 'Resource types never to load, as `resource` or `resource.group`.',
  },
  syncPeriodSeconds: {
    type: 'integer',
    default: 60,
    minimum: 1,
    maximum: 3600,
    description: "How often the sync loop resyncs every pod worker (the kubelet's syncFrequency, 1 minute by default, with up to 50 % jitter), in seconds.",
  },
  housekeepingPeriodSeconds: {
    type: 'integer',
    default: 2,
    minimum: 1,
    maximum: 3600,
    description: "How often the sync loop runs housekeeping (the kubelet's housekeepingPeriod), in seconds.",
  },
  logLevel: { type: 'string', default: 'info', enum: LOG_LEVELS, description: 'The least severe level written to the KubeLoop output channel.' },
  followKubernetesExtension: {
    type: 'boolean',
    default: true,
    description:
      'When the Kubernetes extension (ms-kubernetes-tools.vscode-kubernetes-tools) is installed and `kubeloop.kubeconfig` is unset: use the kubeconfig it uses (its `vs-kubernetes.kubeconfig`; one your user settings do not name is used once you confirm it, and never in Restricted Mode), and follow its context and namespace changes (reloading the tree), unless `kubeloop.context` is set. Off: KubeLoop reads only its own settings. Without that extension this setting changes nothing.',
  },
  'recording.maxMB': {
    type: 'integer',
    default: 1024,
    minimum: 1,
    maximum: 1048576,
    description:
      "Bound of a flight recording's files together, in MiB (**KubeLoop: Start Recording**; `kubeloop sync --record-max-mb`). The newest file is rotated at a quarter of it and the fifth-oldest deleted.",
  },
  'recording.maxHours': {
    type: 'integer',
    default: 24,
    minimum: 1,
    maximum: 8760,
    description:
      'History a flight recording keeps, in hours (`kubeloop sync --record-max-hours`): files whose last change is older are deleted, at least three quarters of it is kept.',
  },
  'recording.folder': {
    type: 'string',
    default: '',
    scope: 'machine',
    check: checkFolderPath,
    description:
      "The folder **KubeLoop: Start Recording**'s save dialog and **Open Recording...** open in. Empty: `recordings` in KubeLoop's own storage (VS Code's global storage), outside any workspace, so a recording is not committed by accident.",
  },
};

export const SETTINGS_SECTION = 'kubeloop';

export function defaultSettings(): KubeLoopSettings {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(SETTINGS)) out[key] = Array.isArray(spec.default) ? [...spec.default] : spec.default;
  out.concurrencyChosen = false;
  return out as unknown as KubeLoopSettings;
}

export interface SettingsReadResult {
  settings: KubeLoopSettings;
  /** One sentence per rejected value, naming the setting, the rule, the value seen and the default used. */
  problems: string[];
}

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function check(key: string, spec: SettingSpec, v: unknown): { ok: true; value: unknown } | { ok: false; rule: string } {
  switch (spec.type) {
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v) && v >= spec.minimum && v <= spec.maximum
        ? { ok: true, value: v }
        : { ok: false, rule: `must be a whole number from ${spec.minimum} to ${spec.maximum}` };
    case 'boolean':
      return typeof v === 'boolean' ? { ok: true, value: v } : { ok: false, rule: 'must be true or false' };
    case 'string': {
      if (!('enum' in spec)) {
        if (typeof v !== 'string') return { ok: false, rule: 'must be a string' };
        const why = spec.check?.(v.trim());
        return why ? { ok: false, rule: why } : { ok: true, value: v.trim() };
      }
      return typeof v === 'string' && (spec.enum as readonly string[]).includes(v)
        ? { ok: true, value: v }
        : { ok: false, rule: `must be one of ${spec.enum.join(', ')}` };
    }
    case 'array': {
      if (!Array.isArray(v)) return { ok: false, rule: 'must be a list of strings' };
      const re = new RegExp(spec.itemPattern);
      const bad = v.find((item) => typeof item !== 'string' || !re.test(item));
      if (bad !== undefined) return { ok: false, rule: `must list only valid names; ${show(bad)} is not ${spec.itemHint}` };
      return { ok: true, value: [...new Set(v as string[])] };
    }
    default: {
      const never: never = spec;
      throw new Error(`unknown setting spec for ${key}: ${show(never)}`);
    }
  }
}

/**
 * Reads every setting through `get` (undefined = not set), validating each one on its own.
 * `isSet`: whether the user set a key (VS Code's getter returns defaults, so the glue asks
 * inspect()); without it, a key is set when `get` gives a value.
 */
export function readSettings(get: (key: SettingKey) => unknown, isSet?: (key: SettingKey) => boolean): SettingsReadResult {
  const settings = defaultSettings();
  const problems: string[] = [];
  settings.concurrencyChosen = isSet ? isSet('concurrency') : get('concurrency') !== undefined && get('concurrency') !== null;
  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    const spec = SETTINGS[key];
    const raw = get(key);
    if (raw === undefined || raw === null) continue;
    const r = check(key, spec, raw);
    if (r.ok) (settings as unknown as Record<string, unknown>)[key] = r.value;
    else problems.push(`${SETTINGS_SECTION}.${key} ${r.rule}; got ${show(raw)}. Using ${show(spec.default)}.`);
  }
  return { settings, problems };
}

/** The JSON schema VS Code shows in its settings editor, generated from SETTINGS. */
export function configurationSchema(): Record<string, Record<string, unknown>> {
  const props: Record<string, Record<string, unknown>> = {};
  for (const [key, spec] of Object.entries(SETTINGS)) {
    const p: Record<string, unknown> = { type: spec.type, default: spec.default, markdownDescription: spec.description };
    if (spec.type === 'integer') Object.assign(p, { minimum: spec.minimum, maximum: spec.maximum });
    if (spec.type === 'array') Object.assign(p, { items: { type: 'string', pattern: spec.itemPattern } });
    if (spec.type === 'string' && 'enum' in spec) Object.assign(p, { enum: [...spec.enum] });
    if ((spec.type === 'string' || spec.type === 'array') && 'scope' in spec) Object.assign(p, { scope: spec.scope });
    props[`${SETTINGS_SECTION}.${key}`] = p;
  }
  return props;
}
