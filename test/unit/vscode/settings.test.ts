import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { defaultSettings, readSettings, SETTINGS, type KubeLoopSettings } from '../../../src/app/settings';

const from = (values: Partial<Record<keyof KubeLoopSettings, unknown>>) => readSettings((k) => values[k]);

describe('readSettings', () => {
  it('gives the defaults, without problems, when nothing is set', () => {
    assert.deepEqual(from({}), { settings: defaultSettings(), problems: [] });
    assert.equal(defaultSettings().concurrency, 4);
  });

  it('accepts valid values', () => {
    const r = from({
      concurrency: 32,
      namespaces: ['default', 'kube-system'],
      includeTypes: ['pods', 'deployments.apps'],
      logLevel: 'trace',
      metadataOnly: true,
    });
    assert.deepEqual(r.problems, []);
    assert.equal(r.settings.concurrency, 32);
    assert.deepEqual(r.settings.includeTypes, ['pods', 'deployments.apps']);
    assert.equal(r.settings.logLevel, 'trace');
  });

  it('replaces an out-of-range concurrency by the default and says why, naming the setting', () => {
    const r = from({ concurrency: 64 });
    assert.equal(r.settings.concurrency, 4);
    assert.deepEqual(r.problems, ['kubeloop.concurrency must be a whole number from 1 to 32; got 64. Using 4.']);
  });

  it('tells a concurrency the user set (used exactly) from the default (chosen by RTT)', () => {
    assert.equal(from({}).settings.concurrencyChosen, false);
    assert.equal(from({ concurrency: 4 }).settings.concurrencyChosen, true);
    // VS Code's getter gives the default for an unset key; inspect() (isSet) tells them apart.
    const vscodeLike = (set: boolean) =>
      readSettings(
        (k) => (k === 'concurrency' ? 4 : undefined),
        (k) => k === 'concurrency' && set,
      );
    assert.equal(vscodeLike(false).settings.concurrencyChosen, false);
    assert.equal(vscodeLike(false).settings.concurrency, 4);
    assert.equal(vscodeLike(true).settings.concurrencyChosen, true);
    assert.equal(vscodeLike(true).settings.concurrency, 4);
  });

  it('rejects a namespace that is not a DNS label, quoting it', () => {
    const r = from({ namespaces: ['default', 'Not_A_Namespace'] });
    assert.deepEqual(r.settings.namespaces, []);
    assert.match(r.problems[0]!, /kubeloop\.namespaces .*"Not_A_Namespace" is not a namespace name/);
  });

  it('always returns complete, valid settings whatever the raw values (property)', () => {
    const keys = Object.keys(SETTINGS) as (keyof KubeLoopSettings)[];
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...keys), fc.anything()), (raw) => {
        const { settings, problems } = readSettings((k) => raw[k]);
        assert.deepEqual(readSettings((k) => settings[k]).problems, [], 'the result re-validates cleanly');
        assert.ok(problems.length <= keys.length);
        for (const p of problems) assert.match(p, /^kubeloop\.\w+(\.\w+)? .+ Using .+\.$/s);
      }),
    );
  });
});
