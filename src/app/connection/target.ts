/**
 * Which cluster the window points at: the embedded demo cluster while the user points it there
 * (Start Demo Cluster, or picking it in Select Context), else the `kubeloop.kubeconfig` /
 * `kubeloop.context` settings, filled in by what the Kubernetes extension says where those are unset.
 * No 'vscode' import. The demo target is kept in memory, never written to settings: after a restart
 * the demo cluster is gone, and a setting pointing at it would only mislead.
 *
 * Guarantee: listeners hear each change of `current()` once, synchronously, in check() or setDemo().
 */
import type { KubeLoopSettings } from '../settings';
import { expandHome, sameTarget, type ConnectionTarget } from './connection';

export function settingsTarget(s: Pick<KubeLoopSettings, 'kubeconfig' | 'context'>): ConnectionTarget {
  return { ...(s.kubeconfig ? { kubeconfig: expandHome(s.kubeconfig) } : {}), ...(s.context ? { context: s.context } : {}) };
}

export class TargetState {
  private demo: ConnectionTarget | undefined;
  private last: ConnectionTarget;
  private readonly listeners = new Set<(t: ConnectionTarget) => void>();

  /** `followed`: the Kubernetes extension's kubeconfig and context, already reduced to what the settings leave unset. */
  constructor(
    private readonly settings: () => Pick<KubeLoopSettings, 'kubeconfig' | 'context'>,
    private readonly followed: () => { kubeconfig?: string; context?: string } = () => ({}),
  ) {
    this.last = this.current();
  }

  onDidChange(fn: (t: ConnectionTarget) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  current(): ConnectionTarget {
    return this.demo ?? this.fromSettings();
  }

  /** The target the settings (and what they let KubeLoop follow) name, whether or not the demo cluster is current. */
  fromSettings(): ConnectionTarget {
    const f = this.followed();
    const t = settingsTarget(this.settings());
    return { ...(f.kubeconfig ? { kubeconfig: expandHome(f.kubeconfig) } : {}), ...(f.context ? { context: f.context } : {}), ...t };
  }

  get isDemo(): boolean {
    return !!this.demo;
  }

  /** Points at the demo cluster (a target with demo: true), or back at the settings (undefined). */
  setDemo(t: ConnectionTarget | undefined): void {
    this.demo = t;
    this.check();
  }

  /** Call after the settings (or what is followed) changed. */
  check(): void {
    const now = this.current();
    if (sameTarget(now, this.last)) return;
    this.last = now;
    for (const l of [...this.listeners]) l(now);
  }
}
