/**
 * Where an exec credential plugin's bare command name is found: on PATH, never in the current
 * folder. Left to the OS, both would look there: Windows' search (libuv's, CreateProcess's) tries
 * the current folder before PATH, and execvp takes an empty or relative PATH entry ("::", ".") as
 * the current folder; a folder a user merely opened (a cloned repository) could then plant a
 * `kubelogin.exe` that receives the cluster's credentials. So the name is resolved here and the
 * plugin is started by its absolute path.
 *
 * Guarantees, as Go's os/exec.LookPath (which kubectl runs plugins through) with its ErrDot rule:
 * - A command containing a path separator is used as it is (kubeconfig.ts has made a relative one
 *   absolute against its kubeconfig's folder).
 * - PATH entries are tried in order; an empty or relative entry is skipped, as Go refuses a result
 *   relative to the current folder.
 * - POSIX: the first regular file there that this process may execute.
 * - Windows: the name as given when it has an extension, then the name with each PATHEXT extension
 *   in turn (default .COM;.EXE;.BAT;.CMD).
 * - A .bat or .cmd file is run by cmd.exe (Node refuses to start one directly), with its arguments
 *   quoted; an argument cmd.exe would read as syntax (" % ! ^ & | < > or a line break) is refused
 *   rather than escaped, since cmd.exe's parsing of escapes cannot be relied on (CVE-2024-27980).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

export interface LookPathOptions {
  /** Default process.platform. */
  platform?: NodeJS.Platform;
  /** PATH and PATHEXT are read from here (default process.env). */
  env?: NodeJS.ProcessEnv;
}

const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD';

/** An environment variable, matched case-insensitively on Windows (where `Path` is common). */
function envVar(env: NodeJS.ProcessEnv, name: string, windows: boolean): string | undefined {
  if (!windows) return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name);
  return key === undefined ? undefined : env[key];
}

function executable(file: string, windows: boolean): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    if (!windows) accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute file to start for `command`, or undefined when PATH has none (see above). */
export function lookPath(command: string, o: LookPathOptions = {}): string | undefined {
  const windows = (o.platform ?? process.platform) === 'win32';
  const env = o.env ?? process.env;
  if (command.includes('/') || (windows && command.includes('\\'))) return command;
  const exts = windows
    ? (envVar(env, 'PATHEXT', true) || DEFAULT_PATHEXT)
        .split(';')
        .map((e) => e.trim())
        .filter((e) => e.startsWith('.'))
    : [];
  const names = windows ? [...(command.includes('.') ? [command] : []), ...exts.map((e) => command + e)] : [command];
  for (const dir of (envVar(env, 'PATH', windows) ?? '').split(windows ? ';' : ':')) {
    const d = windows ? dir.replace(/^"(.*)"$/, '$1') : dir;
    if (!d || !isAbsolute(d)) continue;
    for (const n of names) {
      const f = join(d, n);
      if (executable(f, windows)) return f;
    }
  }
  return undefined;
}

export interface Spawnable {
  file: string;
  args: string[];
  /** Set for cmd.exe: the command line is passed as built, not quoted again by Node. */
  windowsVerbatimArguments?: boolean;
}

/** How to start the resolved plugin `file`: itself, or a batch file through cmd.exe; a string says why not. */
export function spawnable(file: string, args: readonly string[], o: LookPathOptions = {}): Spawnable | string {
  const windows = (o.platform ?? process.platform) === 'win32';
  if (!windows || !/\.(bat|cmd)$/i.test(file)) return { file, args: [...args] };
  const bad = [file, ...args].find((a) => /["%!^&|<>\r\n]/.test(a));
  if (bad !== undefined) return `a batch file's arguments may not contain " % ! ^ & | < > or a line break (cmd.exe would read them as syntax)`;
  const comspec = envVar(o.env ?? process.env, 'COMSPEC', true) || 'cmd.exe';
  const line = [file, ...args].map((a) => `"${a}"`).join(' ');
  return { file: comspec, args: ['/d', '/s', '/c', `"${line}"`], windowsVerbatimArguments: true };
}
