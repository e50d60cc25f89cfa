/**
 * Real clients no one here wrote, for tests: the client-go check program (scripts/clientgo, built by
 * scripts/build-clientgo.sh) and the official Python client's checks (scripts/python-client, in a
 * venv made by scripts/setup-python-client.sh). Both set-up scripts cache outside the repo, take a
 * lock, and print the path to run last on stdout; both programs print one JSON line per check.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

export interface ChecksRun {
  results: CheckResult[];
  code: number | null;
  stderr: string;
}

const ROOT = resolve(__dirname, '../..');

const setups = new Map<string, Promise<string>>();

/** Runs a set-up script once per process (a no-op when cached); resolves to the last stdout line. */
function setUp(script: string, signal?: AbortSignal): Promise<string> {
  let p = setups.get(script);
  if (!p) {
    p = new Promise<string>((done, reject) => {
      // A cold build downloads Go modules or PyPI packages: minutes on a busy machine, so no timeout
      // here; the caller's signal (its test's timeout) bounds it.
      execFile('bash', [resolve(ROOT, script)], { maxBuffer: 16 << 20, signal }, (err, stdout, stderr) => {
        if (err) {
          setups.delete(script); // a later call may retry
          reject(new Error(`${script} failed (${err.message.split('\n')[0]}):\n${stderr}`));
          return;
        }
        done(stdout.trim().split('\n').pop()!);
      });
    });
    setups.set(script, p);
  }
  return p;
}

/** The client-go check binary's path (built, or taken from the cache). */
export function clientGoChecks(signal?: AbortSignal): Promise<string> {
  return setUp('scripts/build-clientgo.sh', signal);
}

/** The venv's python with the pinned `kubernetes` package installed. */
export function pythonClient(signal?: AbortSignal): Promise<string> {
  return setUp('scripts/setup-python-client.sh', signal);
}

export const PYTHON_CHECKS = resolve(ROOT, 'scripts/python-client/checks.py');

/**
 * Runs a check program to its end and parses its JSON lines. A line that is not a check result
 * is kept as a failed result, so nothing the program said is lost.
 */
export function runChecks(cmd: string, args: string[], signal?: AbortSignal): Promise<ChecksRun> {
  return new Promise((done, reject) => {
    execFile(cmd, args, { maxBuffer: 16 << 20, signal, timeout: 6 * 60_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') {
        reject(new Error(`${cmd} did not run to its end (${err.message}):\n${stderr}`));
        return;
      }
      const results: CheckResult[] = [];
      for (const line of stdout.split('\n')) {
        if (!line.trim()) continue;
        try {
          const r = JSON.parse(line) as CheckResult;
          if (typeof r.name === 'string' && typeof r.ok === 'boolean') {
            results.push(r);
            continue;
          }
        } catch {
          // not JSON: reported below
        }
        results.push({ name: '(unparsed output)', ok: false, detail: line });
      }
      done({ results, code: err ? (err.code as unknown as number) : 0, stderr });
    });
  });
}

/** The failures, one per line, for an assertion message. */
function failures(run: ChecksRun): string {
  return run.results
    .filter((r) => !r.ok)
    .map((r) => `${r.name}: ${r.detail}`)
    .join('\n');
}

/** Every check the client-go program runs (so a run that skips or loses one fails). */
function clientGoCheckNames(): string[] {
  const names = ['discovery/server-groups-and-resources'];
  for (const enc of ['default', 'json', 'protobuf']) {
    for (const resource of ['configmaps', 'secrets', 'deployments', 'services', 'pods']) {
      for (const verb of ['create', 'get', 'update', 'patch-merge', 'patch-strategic', 'patch-json', 'apply', 'delete', 'deletecollection'])
        names.push(`${enc}/${resource}/${verb}`);
    }
    names.push(`${enc}/deployments/scale`, `${enc}/pods/update-status`, `${enc}/configmaps/pager`, `${enc}/configmaps/informer`, `${enc}/configmaps/watch`);
  }
  names.push('dynamic/crd-established', 'dynamic/gadgets/create-get-list', 'dynamic/gadgets/update-patch-apply', 'dynamic/gadgets/delete');
  for (const b of Object.keys(UNDECODABLE_BODY_ANSWERS)) names.push(`protobuf/undecodable-body/${b}`);
  return names;
}

/**
 * What kube-apiserver v1.36 answers to the program's undecodable protobuf bodies (a POST of
 * configmaps), recorded from the real server; the apiserver tier re-checks them there.
 */
const UNDECODABLE_BODY_ANSWERS: Record<string, string> = {
  'no-magic':
    '400 BadRequest: the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"apiVersion":"v1","kind":"Con ...)',
  truncated: '400 BadRequest: the object provided is unrecognized (must be of type ConfigMap): unexpected EOF (6b3873000a0c0a02763112)',
  'garbage-raw': '400 BadRequest: ConfigMap in version "v1" cannot be handled as a ConfigMap: unexpected EOF',
  'magic-only': '400 BadRequest: the object provided is unrecognized (must be of type ConfigMap): empty body (6b387300)',
  'other-kind': '400 BadRequest: Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
};

/** Asserts a client-go run: every expected check ran, each passed, the bad bodies got upstream's answers. */
export function assertClientGoRun(run: ChecksRun): void {
  const fail = failures(run);
  if (run.code !== 0 || fail) throw new Error(`client-go checks failed (exit ${run.code}):\n${fail}\n${run.stderr}`);
  const got = run.results.map((r) => r.name).sort();
  const want = clientGoCheckNames().sort();
  const missing = want.filter((n) => !got.includes(n));
  const extra = got.filter((n) => !want.includes(n));
  if (missing.length || extra.length) throw new Error(`checks missing: ${missing.join(', ') || '-'}; unexpected: ${extra.join(', ') || '-'}`);
  for (const [b, answer] of Object.entries(UNDECODABLE_BODY_ANSWERS)) {
    const r = run.results.find((x) => x.name === `protobuf/undecodable-body/${b}`)!;
    if (r.detail !== answer) throw new Error(`undecodable body ${b}: answered\n  ${r.detail}\nkube-apiserver answers\n  ${answer}`);
  }
}

/** Every check scripts/python-client/checks.py runs. */
const PYTHON_CHECK_NAMES = [
  'core/configmaps/create-read',
  'core/configmaps/patch',
  'core/configmaps/replace-conflict',
  'core/configmaps/not-found',
  'core/configmaps/list-paged',
  'core/configmaps/watch',
  'core/configmaps/delete',
  'core/secrets/create-read-delete',
  'core/pods/create-list-delete',
  'apps/deployments/scale',
  'custom/crd-established',
  'custom/gizmos/create-get-patch-list-delete',
];

/** Asserts a Python client run: every check ran and passed. */
export function assertPythonRun(run: ChecksRun): void {
  const fail = failures(run);
  if (run.code !== 0 || fail) throw new Error(`python client checks failed (exit ${run.code}):\n${fail}\n${run.stderr}`);
  const got = run.results.map((r) => r.name);
  const missing = PYTHON_CHECK_NAMES.filter((n) => !got.includes(n));
  if (missing.length || got.length !== PYTHON_CHECK_NAMES.length)
    throw new Error(`python checks missing: ${missing.join(', ') || '-'}; ran: ${got.join(', ')}`);
}
