/**
 * redactUrl / redactUrlsIn: a URL quoted in a message never keeps its user info (a proxy password,
 * a token as the user name), and the rest of the address stays as written.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { redactUrl, redactUrlsIn } from '../../src/core/kube/redactUrl';
import { createLogger } from '../../src/app/logger';
import { describeConnectionError } from '../../src/app/connection/connection';
import { statusBarText } from '../../src/app/statusText';
import { contextRow } from '../../src/app/contexts/contextSet';
import { noRightsText } from '../../src/core/loader';
import { commandFailedText } from '../../src/app/commandIds';

describe('redactUrl', () => {
  it('drops user name and password, with or without a scheme, and keeps the rest as written', () => {
    assert.equal(redactUrl('http://jane:s3cret@proxy.corp:3128'), 'http://proxy.corp:3128');
    assert.equal(redactUrl('socks5://jane:s3cret@127.0.0.1:1080/x?y=1'), 'socks5://127.0.0.1:1080/x?y=1');
    assert.equal(redactUrl('jane:s3cret@proxy.corp:3128'), 'proxy.corp:3128');
    assert.equal(redactUrl('https://TOKEN@api.example.com:6443'), 'https://api.example.com:6443');
    // a password holding an unescaped '@'
    assert.equal(redactUrl('http://jane:p@ss@proxy:1'), 'http://proxy:1');
    assert.equal(redactUrl('https://api.example.com/path@x'), 'https://api.example.com/path@x');
    assert.equal(redactUrl(new URL('http://jane:s3cret@proxy.corp:3128')), 'http://proxy.corp:3128');
    assert.equal(redactUrl('not a url at all'), 'not a url at all');
  });

  it('redactUrlsIn: every scheme://user-info@ in free text', () => {
    assert.equal(
      redactUrlsIn('agent for socks5://a:b@h:1 failed; retry via "http://c:d@p:2/" or https://ok.example/'),
      'agent for socks5://h:1 failed; retry via "http://p:2/" or https://ok.example/',
    );
  });

  it('messages of the app carry no user info: logger, connection errors, status bar, context rows, no-rights text, failed commands', () => {
    const lines: string[] = [];
    const sink = {
      trace: (m: string) => lines.push(m),
      debug: (m: string) => lines.push(m),
      info: (m: string) => lines.push(m),
      warn: (m: string) => lines.push(m),
      error: (m: string) => lines.push(m),
    };
    createLogger(sink, () => 'trace').warn('cannot reach proxy http://jane:s3cret@proxy:3128');
    const server = 'https://jane:s3cret@api.example.com:6443';
    const texts = [
      ...lines,
      describeConnectionError(new Error('via http://jane:s3cret@proxy:3128: refused'), { context: 'c', server }).message,
      statusBarText({ context: 'c', server, demo: false, objects: 0, sync: 'off' }).tooltip,
      contextRow('c', server, { phase: 'idle' }, 0).tooltip,
      noRightsText({ user: 'u', context: 'c', server }, []),
      // a failed command's notification, which does not pass through the logger
      commandFailedText('loadClusterResources', new Error(`connect ECONNREFUSED ${server}`)),
    ];
    for (const t of texts) {
      assert.ok(!t.includes('s3cret') && !t.includes('jane'), t);
      assert.ok(/api\.example\.com:6443|proxy:3128/.test(t), t);
    }
  });
});
