/**
 * The user's word on following a kubeconfig the Kubernetes extension reports that their own setup
 * does not name (kubernetesApi.ts says which, and why it matters: a kubeconfig can run programs).
 *
 * Guarantees:
 * - One question per path: an answer ("follow" or "refuse") is kept in `store` (VS Code's
 *   globalState: the user's, in every window, after a restart) and never asked again; a question
 *   dismissed without an answer is not asked again until the next session.
 * - Paths are compared resolved, so `~/.kube/../.kube/x` and `~/.kube/x` are one answer.
 * - Whatever the store holds that is not an answer is ignored (it is read, not trusted).
 */
import { resolve } from 'node:path';
import type { FollowAnswer } from './kubernetesApi';

/** vscode.Memento's part this uses. */
export interface AnswerStore {
  get(key: string): unknown;
  update(key: string, value: unknown): PromiseLike<void>;
}

const KEY = 'kubeloop.kubernetesExtension.kubeconfigAnswers';

export class FollowConsent {
  private readonly asked = new Set<string>();

  constructor(
    private readonly store: AnswerStore,
    /** Asks the user; undefined when they dismissed the question. */
    private readonly ask: (path: string) => PromiseLike<FollowAnswer | undefined>,
  ) {}

  /** The answers given so far, by resolved path. */
  answers(): Record<string, FollowAnswer> {
    const raw = this.store.get(KEY);
    const out: Record<string, FollowAnswer> = {};
    if (raw && typeof raw === 'object') for (const [k, v] of Object.entries(raw as Record<string, unknown>)) if (v === 'follow' || v === 'refuse') out[k] = v;
    return out;
  }

  /** Asks about `path` unless it was answered or asked already; resolves true when an answer was recorded. */
  async confirm(path: string): Promise<boolean> {
    const key = resolve(path);
    if (this.answers()[key] || this.asked.has(key)) return false;
    this.asked.add(key);
    const answer = await this.ask(path);
    if (!answer) return false;
    await this.store.update(KEY, { ...this.answers(), [key]: answer });
    return true;
  }
}
