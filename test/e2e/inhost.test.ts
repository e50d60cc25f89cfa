// The in-host mocha suites (test/e2e/electron/suite/, the same ones electron/runTests.ts runs in a
// desktop VS Code) inside code-server's real Node extension host: they reach the extension through
// the VS Code API rather than through the page. See test/e2e/inhost/runInCodeServer.ts for how.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runInCodeServer } from './inhost/runInCodeServer';

describe("the in-host mocha suites, in code-server's extension host", () => {
  it('run and all pass (the extension host exits 0 and mocha reports no failure)', async () => {
    const r = await runInCodeServer({
      // the e2e tier has built dist/ already; a lone run of this file builds it
      build: process.env.KUBELOOP_TEST_TIER !== 'e2e',
      timeoutMs: 10 * 60_000,
    });
    // mocha's report, from its first suite title to its summary, for the reader of the tier's output
    const first = r.output.findIndex((l) => /^\s+KubeLoop /.test(l));
    const report = r.output.slice(Math.max(0, first));
    console.log(report.join('\n'));
    console.log(`in-host run: ${r.runMs} ms from opening the workbench to the extension host's exit (code ${r.code})`);

    const passing = /^\s*(\d+) passing/m.exec(report.join('\n'));
    assert.ok(passing, 'mocha printed its summary');
    assert.ok(Number(passing[1]) > 0, 'mocha ran tests');
    assert.doesNotMatch(report.join('\n'), /^\s*\d+ failing/m, 'no mocha test failed');
    assert.equal(r.code, 0, 'the extension host exited 0 (run() resolved)');
  });
});
