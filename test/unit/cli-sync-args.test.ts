/** `kubeloop sync`'s flags, checked before anything connects: each refusal names the flag and exits 1. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseSyncArgs } from '../../src/cli/syncArgs';

describe('kubeloop sync flags', () => {
  it('reads every flag into the run: seconds and sizes in ms and bytes, repeatable flags as lists', () => {
    const f = parseSyncArgs([
      ...['--kubeconfig', 'kc', '--context', 'ctx', '-n', 'a', '--namespace', 'b', '--node', 'node-1.example'],
      ...['--consistency-period', '30', '--duration', '1.5', '--request-timeout', '1m', '--json', '--workers'],
      ...['--kubelet-log', '/var/log/k.log', '--compare', '--watch', 'configmaps', '--watch', 'deployments.apps'],
      ...['--record', 'rec', '--record-max-mb', '2', '--record-max-hours', '0.5', '--record-keyframe-seconds', '60'],
    ]);
    assert.deepEqual(f, {
      kubeconfig: 'kc',
      context: 'ctx',
      namespaces: ['a', 'b'],
      node: 'node-1.example',
      consistencyPeriodMs: 30_000,
      durationMs: 1500,
      requestTimeoutMs: 60_000,
      json: true,
      workers: true,
      kubeletLog: '/var/log/k.log',
      compare: true,
      watch: ['configmaps', 'deployments.apps'],
      record: { path: 'rec', maxBytes: 2 * 1024 * 1024, maxAgeMs: 1_800_000, keyframeEveryMs: 60_000 },
    });
    assert.deepEqual(parseSyncArgs([]), { namespaces: [], json: false, workers: false, compare: false, watch: [] });
    assert.equal(parseSyncArgs(['-h']), 'help');
  });

  it('refuses what it cannot use, naming the flag; an unknown flag comes with the usage', () => {
    const refusals: [string[], RegExp][] = [
      [['--duration', '0'], /^--duration must be a positive number of seconds, got "0"$/],
      [['--consistency-period', 'soon'], /^--consistency-period must be a positive number of seconds/],
      [['--request-timeout', '5 minutes'], /^--request-timeout: invalid value "5 minutes"/],
      [['--kubelet-log', 'k.log'], /^--kubelet-log needs --node NAME/],
      [['--node', 'Node_1'], /^--node must be a node name .* got "Node_1"$/],
      [['--record', 'r', '--record-max-mb', '0'], /^--record-max-mb must be a positive number, got "0"$/],
      [['--record-max-hours', '2'], /^--record-max-mb, --record-max-hours and --record-keyframe-seconds need --record FILE$/],
    ];
    for (const [argv, message] of refusals) {
      const r = parseSyncArgs(argv);
      assert.ok(typeof r === 'object' && 'error' in r, `${argv.join(' ')} was accepted`);
      assert.match(r.error, message);
      assert.equal(r.withHelp, undefined, argv.join(' '));
    }
    const unknown = parseSyncArgs(['--bogus']);
    assert.ok(typeof unknown === 'object' && 'error' in unknown && unknown.withHelp === true && /--bogus/.test(unknown.error));
  });

  it('--freshness: the table every --freshness-period (a duration as kubectl reads one; 0: only at exit), once a minute by default', () => {
    const base = { namespaces: [], json: false, workers: false, compare: false, watch: [] };
    assert.deepEqual(parseSyncArgs(['--freshness']), { ...base, freshness: { periodMs: 60_000 } });
    assert.deepEqual(parseSyncArgs(['--freshness', '--freshness-period', '30s']), { ...base, freshness: { periodMs: 30_000 } });
    assert.deepEqual(parseSyncArgs(['--freshness', '--freshness-period', '5']), { ...base, freshness: { periodMs: 5_000 } });
    assert.deepEqual(parseSyncArgs(['--freshness', '--freshness-period', '0']), { ...base, freshness: { periodMs: 0 } });
    const refusals: [string[], RegExp][] = [
      [['--freshness-period', '30s'], /^--freshness-period needs --freshness$/],
      [['--freshness', '--freshness-period', 'often'], /^--freshness-period: invalid value "often": must be a single integer in seconds/],
      [['--freshness', '--freshness-period=-1s'], /^--freshness-period: invalid value "-1s"/],
    ];
    for (const [argv, message] of refusals) {
      const r = parseSyncArgs(argv);
      assert.ok(typeof r === 'object' && 'error' in r, `${argv.join(' ')} was accepted`);
      assert.match(r.error, message);
    }
  });
});
