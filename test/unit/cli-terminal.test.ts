/**
 * The CLI prints server text (discovery's type names, Status messages) with its control characters
 * shown, not obeyed, when the stream is a terminal: an API server (or a tenant who named a type or
 * wrote a message) cannot clear the screen, rewrite printed lines or set the clipboard (OSC 52).
 * Against a real loopback HTTP server answering discovery and a 403 Status.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLoad } from '../../src/cli/load';
import { runSync } from '../../src/cli/sync';
import { cliWriter, terminalSafe } from '../../src/cli/terminal';
import { tempDir } from './kube-helpers';

const ESC = '\x1b';
const CLEAR = `${ESC}[2J`;
const CLIPBOARD = `${ESC}]52;c;ZXZpbA==\x07`; // OSC 52: "set the clipboard to 'evil'"
const TYPE = `widgets${CLEAR}`;
const MESSAGE = `widgets is forbidden${CLEAR}${CLIPBOARD}\r0 failed`;

function tty() {
  let text = '';
  return {
    w: { write: (s: string) => (text += s), isTTY: true },
    get text() {
      return text;
    },
  };
}

describe('terminal-safe CLI output', () => {
  let server: http.Server;
  let kubeconfig: string;
  const dir = tempDir();
  before(async () => {
    server = http.createServer((req, res) => {
      const json = (code: number, o: unknown) => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(o));
      };
      const path = (req.url ?? '').split('?')[0]!;
      if (path === '/api') return json(200, { kind: 'APIVersions', versions: ['v1'] });
      if (path === '/apis') return json(200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [] });
      if (path === '/api/v1')
        return json(200, {
          kind: 'APIResourceList',
          groupVersion: 'v1',
          resources: [{ name: TYPE, namespaced: true, kind: 'Widget', verbs: ['list', 'watch', 'get'] }],
        });
      if (path.startsWith('/api/v1/'))
        return json(403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: MESSAGE });
      json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not here' });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    kubeconfig = join(dir.dir, 'kubeconfig');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${url}\ncontexts:\n- name: x\n  context: {cluster: c}\ncurrent-context: x\n`,
    );
  });
  after(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    dir.cleanup();
  });

  it('terminalSafe: ESC as ^[ and CR as \\r (as kubectl), other C0 in caret notation, DEL and C1 as \\u00XX; newline and tab kept', () => {
    assert.equal(terminalSafe(`a${CLEAR}b\r\n\tc\x07\x00\x7f\x9b`), 'a^[[2Jb\\r\n\tc^G^@\\u007f\\u009b');
    // inside a JSON string the escapes of DEL and C1 are JSON's own: the line stays valid, same content
    const line = JSON.stringify({ name: 'x\x7f\x9by' });
    assert.deepEqual(JSON.parse(terminalSafe(line)), { name: 'x\x7f\x9by' });
  });

  it('kubeloop load to a terminal: the type name and the Status message are printed with ESC shown, not obeyed', async () => {
    const out = tty();
    const err = tty();
    const code = await runLoad(['--kubeconfig', kubeconfig, '--no-discovery-cache', '--timeout', '20'], { stdout: out.w, stderr: err.w });
    assert.equal(code, 2, err.text);
    const all = out.text + err.text;
    // eslint-disable-next-line no-control-regex -- looking for control characters
    assert.ok(!/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(all), JSON.stringify(all));
    assert.match(out.text, /widgets\^\[\[2J/);
    assert.match(err.text, /forbidden: widgets\^\[\[2J in default: 403 Forbidden: widgets is forbidden\^\[\[2J\^\[\]52;c;ZXZpbA==\^G\\r0 failed/);
  });

  it('--json to a terminal stays one valid JSON line with the server text as sent', async () => {
    const out = tty();
    const err = tty();
    await runLoad(['--kubeconfig', kubeconfig, '--no-discovery-cache', '--json', '--timeout', '20'], { stdout: out.w, stderr: err.w });
    const j = JSON.parse(out.text.trim()) as { failed: { resource: string; message: string }[] };
    assert.equal(j.failed[0]!.resource, TYPE);
    assert.equal(j.failed[0]!.message, MESSAGE);
    assert.ok(!out.text.includes(ESC));
  });

  it('to a pipe the text is written as it is', async () => {
    let text = '';
    await runLoad(['--kubeconfig', kubeconfig, '--no-discovery-cache', '--timeout', '20'], {
      stdout: { write: (s) => (text += s) },
      stderr: { write: (s) => (text += s) },
    });
    assert.ok(text.includes(`${MESSAGE}`));
  });

  it('kubeloop sync to a terminal goes through the same writer', async () => {
    const lines: string[] = [];
    const code = await runSync([`--bogus${CLEAR}`], { stdout: (l) => lines.push(l), stderr: (l) => lines.push(l), stdoutIsTTY: true, stderrIsTTY: true });
    assert.equal(code, 1);
    assert.ok(
      lines.some((l) => l.includes('--bogus^[[2J')),
      lines.join('\n'),
    );
    assert.ok(!lines.some((l) => l.includes(ESC)));
  });

  it('cliWriter never passes on a URL with user info, terminal or not', () => {
    for (const isTTY of [true, false]) {
      let text = '';
      cliWriter({ write: (s) => (text += s), isTTY }).write('proxy http://jane:s3cret@proxy:3128 refused\n');
      assert.equal(text, 'proxy http://proxy:3128 refused\n');
    }
  });
});
