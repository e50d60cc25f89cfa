/**
 * What the CLI writes, made safe for where it goes. Object names, Status and Event messages,
 * discovery's type names and a recording's content are the server's (or a tenant's) text: printed
 * raw to a terminal, an escape sequence in them could clear the screen, rewrite lines already
 * printed (a spoofed "0 failed"), retitle the window, or set the clipboard (OSC 52).
 *
 * Guarantees (`cliWriter`, the one path every CLI command's output takes):
 * - To a terminal (isTTY), every control character is shown, not obeyed (`terminalSafe`): C0 but
 *   newline and tab (structure of our own output), DEL and C1. ESC shows as `^[` and CR as `\r`, as
 *   kubectl shows them (cli-runtime's printers.EscapeTerminal); the other C0 in caret notation
 *   (`^G`); DEL and C1 as `\u007f`, `\u009b`: inside a JSON string that is the JSON escape of the
 *   same character, so `--json` lines stay valid JSON with the same content (JSON.stringify already
 *   escapes C0, never DEL or C1).
 * - To a pipe or file the text is written as it is (a consumer that wants the bytes gets them).
 * - Anywhere, no URL keeps its user info (redactUrl.ts: a proxy password in an error message).
 */
import { redactUrlsIn } from '../core/kube/redactUrl';

// C0 except \t (0x09) and \n (0x0a), DEL, C1.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Text with every control character but newline and tab made visible (see above). */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    if (code === 0x1b) return '^[';
    if (code === 0x0d) return '\\r';
    if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
    return `\\u00${code.toString(16)}`;
  });
}

export interface Writer {
  write(s: string): unknown;
  /** Set (true) on a stream that is a terminal. */
  readonly isTTY?: boolean;
}

/** A writer that passes every text through the rules above on its way to `out`. */
export function cliWriter(out: Writer): Writer {
  const tty = out.isTTY === true;
  return { isTTY: tty, write: (s: string) => out.write(tty ? terminalSafe(redactUrlsIn(s)) : redactUrlsIn(s)) };
}
