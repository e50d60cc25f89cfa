/**
 * The KubeLoop output channel and the logger that writes to it at the level `kubeloop.logLevel` asks.
 * Glue only; the logger is ../app/logger.ts.
 */
import * as vscode from 'vscode';
import { OUTPUT_CHANNEL_NAME } from '../app/commandIds';
import { createLogger, type LogSink, type Logger } from '../app/logger';
import type { LogLevelName } from '../app/settings';
import { depthNotices } from '../core/kube/objects/depth';

export function createLogChannel(
  context: vscode.ExtensionContext,
  level: () => LogLevelName,
): {
  channel: vscode.LogOutputChannel;
  log: Logger;
} {
  const channel = vscode.window.createOutputChannel(OUTPUT_CHANNEL_NAME, { log: true });
  const log = createLogger(channelSink(channel), level);
  // An object nested too deep to walk is kept cut (core/kube/objects/depth.ts): said once per object.
  context.subscriptions.push(channel, { dispose: depthNotices.subscribe((m) => log.warn(m)) });
  return { channel, log };
}

/**
 * The LogOutputChannel drops messages below its own level (Info unless the user changed it), which
 * would hide the debug and trace lines a user asked for with `kubeloop.logLevel`; those are written
 * at info with their level in front instead. The setting decides what is written (createLogger).
 */
function channelSink(channel: vscode.LogOutputChannel): LogSink {
  const shows = (level: vscode.LogLevel) => channel.logLevel !== vscode.LogLevel.Off && channel.logLevel <= level;
  return {
    trace: (m) => (shows(vscode.LogLevel.Trace) ? channel.trace(m) : channel.info(`[trace] ${m}`)),
    debug: (m) => (shows(vscode.LogLevel.Debug) ? channel.debug(m) : channel.info(`[debug] ${m}`)),
    info: (m) => channel.info(m),
    warn: (m) => channel.warn(m),
    error: (m) => channel.error(m),
  };
}
