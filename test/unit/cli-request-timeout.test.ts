/**
 * --request-timeout, read as kubectl reads it (client-go's clientcmd.ParseTimeout): whole seconds,
 * or a Go duration; 0 = none. `kubeloop load` and `kubeloop sync` take it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseLoadFlags, UsageError } from '../../src/cli/load';
import { parseRequestTimeout } from '../../src/cli/requestTimeout';
import { runSync } from '../../src/cli/sync';

describe('--request-timeout', () => {
  it('whole seconds, Go durations, and 0 for none', () => {
    const cases: [string, number][] = [
      ['0', 0],
      ['30', 30_000],
      ['30s', 30_000],
      ['1m', 60_000],
      ['1m30s', 90_000],
      ['1.5h', 5_400_000],
      ['500ms', 500],
      ['0s', 0],
      ['250us', 1],
    ];
    for (const [v, ms] of cases) assert.equal(parseRequestTimeout(v), ms, v);
  });

  it('anything else is refused with what a valid value looks like', () => {
    for (const v of ['', 's', '-1s', '-5', '1d', '10 s', '1m-3s', 'abc', '1e3s'])
      assert.throws(
        () => parseRequestTimeout(v),
        /--request-timeout: invalid value ".*": must be a single integer in seconds, or an integer followed by a corresponding time unit/,
        v,
      );
  });

  it('kubeloop load takes it (and refuses a bad one as a usage error)', () => {
    assert.equal(parseLoadFlags(['--request-timeout', '1m']).requestTimeoutMs, 60_000);
    assert.equal(parseLoadFlags(['--request-timeout=5']).requestTimeoutMs, 5000);
    assert.throws(() => parseLoadFlags(['--request-timeout', '5 minutes']), UsageError);
  });

  it('kubeloop sync refuses a bad one before it connects', async () => {
    const err: string[] = [];
    const code = await runSync(['--request-timeout', 'soon'], { stdout: () => undefined, stderr: (l) => err.push(l) });
    assert.equal(code, 1);
    assert.match(err.join('\n'), /--request-timeout: invalid value "soon"/);
  });
});
