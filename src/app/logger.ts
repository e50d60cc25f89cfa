/**
 * The extension's logger: messages at or above the user's `kubeloop.logLevel` go to a sink (in the
 * extension host, the "KubeLoop" LogOutputChannel, whose methods have exactly the LogSink shape).
 * No 'vscode' import, so the level logic is unit-tested on its own.
 *
 * Guarantees: the level is read on every call, so a settings change applies to the next message
 * without re-creating anything; a throwing sink never throws into the caller; no URL in a message
 * reaches the sink with its user info (a proxy password: redactUrl.ts).
 */
import { redactUrlsIn } from '../core/kube/redactUrl';
import type { LogLevelName } from './settings';

export interface LogSink {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export type MessageLevel = Exclude<LogLevelName, 'off'>;

/** Most verbose first; 'off' is past the end, so nothing reaches it. */
const ORDER: readonly LogLevelName[] = ['trace', 'debug', 'info', 'warning', 'error', 'off'];

/** Whether a message at `message` level is written when the setting is `threshold`. */
export function isLevelEnabled(threshold: LogLevelName, message: MessageLevel): boolean {
  return ORDER.indexOf(message) >= ORDER.indexOf(threshold);
}

export interface Logger {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A logger that writes nothing (benches and tests that run the app's parts without an output channel). */
export const silentLog: Logger = { trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

export function createLogger(sink: LogSink, threshold: () => LogLevelName): Logger {
  const write = (level: MessageLevel, message: string) => {
    if (!isLevelEnabled(threshold(), level)) return;
    try {
      const text = redactUrlsIn(message);
      if (level === 'warning') sink.warn(text);
      else sink[level](text);
    } catch {
      // logging must never break the operation being logged
    }
  };
  return {
    trace: (m) => write('trace', m),
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warning', m),
    error: (m) => write('error', m),
  };
}
