/**
 * What the extension shows of a container log (a pod's container, current or previous, or an
 * owner's pods interleaved): a header naming the instance read (container ID, restart count), then
 * the lines as they come, into a sink (an output channel in VS Code).
 *
 * Guarantees:
 * - A bounded window: the sink is given at most `keep + every` lines; each time `every` lines were
 *   appended since the last trim, it is replaced by the header and the last `keep` lines (the lines
 *   before are dropped, and the header says so). The extension host holds at most `keep` lines.
 * - Appends are batched per `flushLines` lines or the end, so a fast log is not one call per line.
 * - Errors are values: the returned text says how it ended (403: the missing right, as core says).
 */
import type { KubeClient } from '../../core/kube/client';
import type { MergedLine, PodLogFailure } from '../../core/kube';

export interface LogSink {
  append(text: string): void;
  /** The whole content becomes `text`. */
  replace(text: string): void;
}

export type LogViewTarget =
  { kind: 'pod'; namespace: string; name: string; container?: string; previous?: boolean } | { kind: 'deployment' | 'job'; namespace: string; name: string };

export interface LogWindow {
  keep: number;
  every: number;
  flushLines: number;
}

export const DEFAULT_LOG_WINDOW: LogWindow = { keep: 5_000, every: 10_000, flushLines: 200 };

/** How a target is named in a channel title and a header: `pod/NS/NAME [c]`, `deployment/NS/NAME`. */
export function logViewTitle(t: LogViewTarget): string {
  const base = `${t.kind}/${t.namespace}/${t.name}`;
  if (t.kind !== 'pod') return base;
  return `${base}${t.container ? ` [${t.container}]` : ''}${t.previous ? ' (previous)' : ''}`;
}

function failureText(f: PodLogFailure): string {
  return f.detail ? `${f.message} (${f.detail})` : f.message;
}

/** Keeps the last `keep` lines and feeds the sink within the window (see above). */
class Window {
  private readonly ring: string[] = [];
  private pending: string[] = [];
  private sinceTrim = 0;
  private dropped = 0;
  constructor(
    private readonly sink: LogSink,
    private header: string,
    private readonly w: LogWindow,
  ) {
    sink.replace(header);
  }

  setHeader(header: string): void {
    this.header = header;
  }

  add(line: string): void {
    this.ring.push(line);
    if (this.ring.length > this.w.keep) {
      this.ring.shift();
      this.dropped++;
    }
    this.pending.push(line);
    this.sinceTrim++;
    if (this.sinceTrim >= this.w.every) this.trim();
    else if (this.pending.length >= this.w.flushLines) this.flush();
  }

  flush(): void {
    if (!this.pending.length) return;
    this.sink.append(`${this.pending.join('\n')}\n`);
    this.pending = [];
  }

  private trim(): void {
    const note = this.dropped ? `# ${this.dropped} earlier lines not shown (the view keeps the last ${this.w.keep})\n` : '';
    this.sink.replace(`${this.header}${note}${this.ring.join('\n')}\n`);
    this.pending = [];
    this.sinceTrim = 0;
  }
}

/** Reads the target's log into the sink until it ends (or the signal); resolves with how it ended. */
export async function showLogIn(
  client: KubeClient,
  target: LogViewTarget,
  sink: LogSink,
  signal: AbortSignal,
  w: LogWindow = DEFAULT_LOG_WINDOW,
): Promise<string> {
  const win = new Window(sink, `# ${logViewTitle(target)}: following\n`, w);
  try {
    if (target.kind === 'pod') {
      const open = await client.podLog(target.namespace, target.name, { container: target.container, previous: target.previous, follow: true }, signal);
      if (!open.ok) return `# ${failureText(open.failure)}`;
      const i = open.log.instance;
      const header = `# pod/${i.namespace}/${i.pod} container ${i.container}${i.previous ? ' (previous instance)' : ''}: ${i.containerID ?? 'container ID unknown'}, restart ${i.restartCount ?? '?'}\n`;
      win.setHeader(header);
      sink.replace(header);
      for await (const line of open.log.lines) win.add(line);
      const end = open.log.end();
      return end.kind === 'ended' ? `# the instance ended (${end.lines} lines)` : `# ${failureText(end.failure)}`;
    }
    const errors: string[] = [];
    const end = await client.ownerLogs(
      target.namespace,
      { kind: target.kind, name: target.name },
      { follow: true, tailLines: 1_000 },
      { onLine: (l: MergedLine) => win.add(`[${l.source}] ${l.text}`), onError: (source, f) => void errors.push(`${source}: ${failureText(f)}`) },
      signal,
    );
    for (const e of errors) win.add(`# ${e}`);
    return end.kind === 'ended' ? `# stopped following ${end.sources} container logs` : `# ${failureText(end.failure)}`;
  } finally {
    win.flush();
  }
}
