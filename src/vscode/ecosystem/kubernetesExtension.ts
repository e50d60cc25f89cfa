/**
 * Following the Kubernetes extension (vscode-kubernetes-tools) when it is installed: its kubeconfig,
 * and its context and namespace changes. Glue only; the rules are in kubernetesApi.ts.
 *
 * Guarantees:
 * - Never required: without the extension (or with `kubeloop.followKubernetesExtension` off)
 *   `followed()` is `{}` and KubeLoop reads only its own settings, as before; `vs-kubernetes.*`
 *   settings left behind by an uninstalled extension are not read.
 * - Read-only towards it: KubeLoop reads its settings and listens to its events, never writes them.
 * - Its API is reached once per install (activate() when first needed; an extension installed or
 *   enabled later is picked up through `extensions.onDidChange`); a broken or foreign API is logged
 *   once and then ignored, never thrown into KubeLoop.
 * - `onDidChange` fires only when what is followed changed (kubeconfig or context), `onDidChangeNamespace`
 *   when the extension switched its namespace; the glue reloads on both.
 * - A kubeconfig its API reports that the user's own setup does not name is followed only after
 *   the user confirmed it (asked once, answer remembered: followConsent.ts), and never in an
 *   untrusted window; granting trust re-reads what is followed.
 */
import * as vscode from 'vscode';
import type { Logger } from '../../app/logger';
import { kubeconfigFiles } from '../../app/connection/connection';
import { FollowConsent } from '../../app/ecosystem/followConsent';
import {
  configurationApi,
  followed,
  hostPath,
  KUBERNETES_EXTENSION_ID,
  KUBERNETES_SETTINGS_SECTION,
  kubernetesSettings,
  type Followed,
  type KubernetesConfiguration,
} from '../../app/ecosystem/kubernetesApi';

/**
 * The Kubernetes extension's settings from the user's settings only (local or remote user settings),
 * never a workspace's: a kubeconfig can name an exec plugin, so a cloned repository's
 * .vscode/settings.json must not choose one through `vs-kubernetes.kubeconfig` either (the same reason
 * `kubeloop.kubeconfig` is machine-scoped).
 */
export function userKubernetesSettings(): { kubeconfig?: string; known: string[] } {
  // settings left behind by an uninstalled (or disabled) Kubernetes extension change nothing
  if (!vscode.extensions.getExtension(KUBERNETES_EXTENSION_ID)) return { known: [] };
  return kubernetesSettings(vscode.workspace.getConfiguration().inspect(KUBERNETES_SETTINGS_SECTION)?.globalValue);
}

export class KubernetesFollower implements vscode.Disposable {
  private api: KubernetesConfiguration | undefined;
  private connecting: Promise<void> | undefined;
  private apiPath: string | undefined;
  private context: string | undefined;
  private last: Followed = {};
  private readonly consent: FollowConsent;
  private readonly subscriptions: vscode.Disposable[] = [];
  private apiSubscriptions: { dispose(): unknown }[] = [];
  private readonly changed = new vscode.EventEmitter<Followed>();
  private readonly namespaceChanged = new vscode.EventEmitter<string>();
  /** What is followed changed (kubeconfig or context). */
  readonly onDidChange = this.changed.event;
  /** The Kubernetes extension switched namespace (the kubeconfig context's namespace). */
  readonly onDidChangeNamespace = this.namespaceChanged.event;

  constructor(
    private readonly options: () => { follow: boolean; kubeconfig: string; context: string },
    private readonly log: Logger,
    answers: vscode.Memento,
  ) {
    this.consent = new FollowConsent(answers, (path) => askToFollow(path));
    this.last = this.followed();
    this.subscriptions.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.update('the window is trusted now')),
      vscode.extensions.onDidChange(() => {
        if (!vscode.extensions.getExtension(KUBERNETES_EXTENSION_ID)) this.forget();
        void this.connect();
        this.update('the installed extensions changed');
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(KUBERNETES_SETTINGS_SECTION)) this.update('its settings changed');
      }),
    );
  }

  /** What KubeLoop takes over now (only the parts its own settings leave unset). */
  followed(): Followed {
    const o = this.options();
    const settings = userKubernetesSettings();
    return followed({
      follow: o.follow,
      kubeloopKubeconfig: o.kubeconfig,
      kubeloopContext: o.context,
      ...(this.apiPath ? { apiPath: this.apiPath } : {}),
      settings,
      ...(this.context ? { context: this.context } : {}),
      trusted: vscode.workspace.isTrusted,
      defaults: kubeconfigFiles({}),
      answers: this.consent.answers(),
    });
  }

  /** Whether the extension is installed and its configuration API is in use. */
  get connected(): boolean {
    return !!this.api;
  }

  /**
   * Finds and activates the extension when following is on and it is installed (and not yet
   * connected). Resolves when done; never rejects.
   */
  connect(): Promise<void> {
    if (this.api || !this.options().follow) return Promise.resolve();
    const ext = vscode.extensions.getExtension(KUBERNETES_EXTENSION_ID);
    if (!ext) return Promise.resolve();
    this.connecting ??= (async () => {
      try {
        const broker: unknown = ext.isActive ? ext.exports : await ext.activate();
        const api = configurationApi(broker);
        if (!api) {
          this.log.warn(`Kubernetes extension ${ext.packageJSON?.version ?? ''}: its configuration API is not available; following only its settings`);
          return;
        }
        this.api = api;
        this.apiPath = hostPath(api.getKubeconfigPath());
        const sub = (e: { dispose(): unknown } | undefined) => e && this.apiSubscriptions.push(e);
        sub(
          api.onDidChangeKubeconfigPath?.((p) => {
            this.apiPath = hostPath(p);
            this.update('its kubeconfig changed');
          }),
        );
        sub(
          api.onDidChangeContext?.((name) => {
            this.context = typeof name === 'string' && name ? name : undefined;
            this.update(`it switched to context ${name ?? '(none)'}`);
          }),
        );
        sub(
          api.onDidChangeNamespace?.((ns) => {
            if (!this.options().follow) return;
            this.log.info(`Kubernetes extension: it switched to namespace ${String(ns)}`);
            this.namespaceChanged.fire(String(ns));
          }),
        );
        this.log.info(
          `Kubernetes extension ${ext.packageJSON?.version ?? ''}: following its configuration API ${api.version}${this.apiPath ? `; kubeconfig ${this.apiPath}` : ''}`,
        );
        this.update('connected');
      } catch (e) {
        this.log.warn(`Kubernetes extension: cannot use its API: ${e instanceof Error ? e.message : String(e)}`);
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  /** The extension went away (uninstalled or disabled): nothing of it is followed any more. */
  private forget(): void {
    for (const d of this.apiSubscriptions) d.dispose();
    this.apiSubscriptions = [];
    this.api = undefined;
    this.apiPath = undefined;
    this.context = undefined;
  }

  /**
   * Call after KubeLoop's own settings changed (following may have been turned on or off). Fires no
   * change: the glue's own target check follows a settings change, and a settings change never
   * reloads by itself.
   */
  settingsChanged(): void {
    if (!this.options().follow) this.context = undefined;
    this.last = this.followed();
    void this.connect();
  }

  private update(why: string): void {
    const now = this.followed();
    if (now.unconfirmed) this.confirm(now.unconfirmed);
    if (now.kubeconfig === this.last.kubeconfig && now.context === this.last.context) return;
    this.last = now;
    this.log.info(
      `Kubernetes extension: ${why}; following ${now.kubeconfig || now.context ? [now.kubeconfig ? `kubeconfig ${now.kubeconfig} (${now.from})` : '', now.context ? `context ${now.context}` : ''].filter(Boolean).join(', ') : 'nothing'}`,
    );
    this.changed.fire(now);
  }

  /** Asks the user about a kubeconfig their setup does not name; follows it once they agree. */
  private confirm(path: string): void {
    void this.consent.confirm(path).then(
      (answered) => answered && this.update('you answered about its kubeconfig'),
      (e: unknown) => this.log.warn(`Kubernetes extension: cannot keep your answer about ${path}: ${e instanceof Error ? e.message : String(e)}`),
    );
  }

  dispose(): void {
    for (const d of [...this.subscriptions, ...this.apiSubscriptions]) d.dispose();
    this.changed.dispose();
    this.namespaceChanged.dispose();
  }
}

async function askToFollow(path: string): Promise<'follow' | 'refuse' | undefined> {
  const follow = 'Use It';
  const refuse = 'Not This One';
  const pick = await vscode.window.showWarningMessage(
    `The Kubernetes extension uses the kubeconfig ${path}, which your user settings do not name (a workspace's settings may have chosen it). A kubeconfig can run programs (exec credential plugins). Should KubeLoop use it?`,
    follow,
    refuse,
  );
  return pick === follow ? 'follow' : pick === refuse ? 'refuse' : undefined;
}
