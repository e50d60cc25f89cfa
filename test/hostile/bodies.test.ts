/**
 * Hostile bodies: a server that answers one type's requests with a body that never ends, a gzip
 * bomb, a Content-Length of a terabyte then a trickle, headers one byte a second, or a continue
 * token that never moves; and a watch whose one event never ends. Each case: `kubeloop load` and
 * `kubeloop sync --record` as real processes, and what runs.ts holds every run to (a clear error
 * naming the type and what was wrong within ERROR_WITHIN_MS, peak RSS under its cap, nothing lost
 * of the other types, no secret, no raw control character on a terminal).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startCase, type CaseOptions } from './support/fixture';
import { endlessBody, gzipBomb, hugeLengthTrickle, repeatingContinue, slowHeaders, statusError, watchWithoutNewline } from './support/peers';
import { assertLoadedBut, runLoad, runSync } from './support/runs';
import { either, naming, onType } from './support/select';
import { writeFigures } from './support/figures';

/**
 * The cap of a run whose peer sends bodies up to the transport's cap of one body (512 MiB of decoded
 * bytes): that body's buffers and the CLI's own ~90 MiB, with room (measured: 620 to 660 MiB).
 */
const BODY_RSS_CAP_MIB = 1_024;

const HEALTHY = [
  { group: '', resource: 'pods' },
  { group: '', resource: 'services' },
];
const TOO_LARGE = /larger than \d+ bytes|too large|exceed/i;
// load: the request deadline; sync: the reflector gives up a LIST with no page (or a watch-list with no initial event) within the deadline
const TIMED_OUT = /time(d)? ?out|deadline|no answer within|no page within|no initial event within/i;

interface BodyCase {
  name: string;
  /** The peer, for configmaps' lists (load) and their watches too (sync: a reflector's first request is a watch-list). */
  peer: CaseOptions['misbehave'];
  why: RegExp;
  /**
   * What sync must say, when not `why`: its reflector's first request is a watch-list, a stream
   * with no length to check, so a trickle there is cut by the deadline on its initial list.
   */
  syncWhy?: RegExp;
  capMiB?: number;
}

const configmaps = (h: () => ReturnType<typeof endlessBody>, which: 'list' | 'watch' | 'any' = 'any') => onType('', 'v1', 'configmaps', h, which);

const cases: BodyCase[] = [
  { name: 'endless body', peer: () => configmaps(() => endlessBody('ConfigMap')), why: TOO_LARGE, capMiB: BODY_RSS_CAP_MIB },
  { name: 'gzip bomb', peer: () => configmaps(() => gzipBomb('ConfigMap')), why: TOO_LARGE, capMiB: BODY_RSS_CAP_MIB },
  {
    name: 'Content-Length of 1 TB, then a trickle',
    peer: () => configmaps(() => hugeLengthTrickle('ConfigMap')),
    why: /Content-Length|larger than/i,
    syncWhy: new RegExp(`Content-Length|larger than|${TIMED_OUT.source}`, 'i'),
  },
  { name: 'headers one byte a second', peer: () => configmaps(() => slowHeaders()), why: TIMED_OUT },
  {
    name: 'a continue token that repeats',
    // A server without watch-list (422 to sendInitialEvents, as kube-apiserver with the feature off), so sync's reflector pages a list too.
    peer: () =>
      either(
        (req, url) =>
          url.searchParams.get('sendInitialEvents') === 'true' && /configmaps$/.test(url.pathname)
            ? statusError(422, 'Invalid', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled')
            : undefined,
        configmaps(() => repeatingContinue('ConfigMap', 'v1'), 'list'),
      ),
    why: /continue/i,
  },
];

after(() => console.log(writeFigures(__filename)));

describe('hostile bodies', () => {
  for (const k of cases) {
    it(`${k.name}: kubeloop load names configmaps and why, and loads every other type whole`, async () => {
      const c = await startCase({ misbehave: k.peer });
      try {
        const base = await c.baseline();
        const run = await runLoad(k.name, c, ['--json'], k.capMiB);
        assert.equal(run.r.code, 2, `exit status (2: some types failed); stderr: ${run.r.err.slice(-1000)}`);
        assertLoadedBut(run, base, { configmaps: k.why });
      } finally {
        await c.stop();
      }
    });

    it(`${k.name}: kubeloop sync --record says what is wrong with configmaps and records every pod and service`, async () => {
      const c = await startCase({ misbehave: k.peer });
      try {
        await runSync(k.name, c, { watch: ['configmaps', 'services'], error: naming('configmaps', k.syncWhy ?? k.why), healthy: HEALTHY, capMiB: k.capMiB });
      } finally {
        await c.stop();
      }
    });
  }

  it('a watch whose one event never ends (no newline): kubeloop sync --record says so and records every pod and service', async () => {
    const c = await startCase({ misbehave: () => configmaps(() => watchWithoutNewline(), 'watch') });
    try {
      await runSync('watch without a newline', c, {
        watch: ['configmaps', 'services'],
        error: naming('configmaps', /frame|newline|larger than \d+ bytes|too large|exceed/i),
        healthy: HEALTHY,
        capMiB: BODY_RSS_CAP_MIB,
      });
    } finally {
      await c.stop();
    }
  });
});
