/**
 * LineIo: how a long-running command (sync, writers) prints, one line at a time, so tests can run
 * the command in-process and read its lines. safeIo puts every line through cliWriter
 * (terminal.ts): a server's text never reaches a terminal as control characters.
 */
import type { Clock } from '../core/clock';
import { cliWriter } from './terminal';

export interface LineIo {
  stdout(line: string): void;
  stderr(line: string): void;
  /** Where stdout / stderr is a terminal: control characters of server text are then shown, not sent (terminal.ts). */
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  /** Ends the run early (the process's SIGINT/SIGTERM when not given). */
  signal?: AbortSignal;
  clock?: Clock;
}

/** The process's own streams. */
export function processIo(): LineIo {
  return {
    stdout: (l) => process.stdout.write(`${l}\n`),
    stderr: (l) => process.stderr.write(`${l}\n`),
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
  };
}

/** Every line through cliWriter, as the streams behind `io` are terminals or not. */
export function safeIo(io: LineIo): LineIo {
  const out = cliWriter({ write: (l: string) => io.stdout(l), isTTY: io.stdoutIsTTY });
  const err = cliWriter({ write: (l: string) => io.stderr(l), isTTY: io.stderrIsTTY });
  return { ...io, stdout: (l) => out.write(l), stderr: (l) => err.write(l) };
}
