/**
 * The figures the hostile tier reports: per run of the CLI, its case, command, time to the error,
 * peak RSS and whether it crashed or hung. Each test file writes its runs to
 * `.test-artifacts/hostile/<file>.json` (KUBELOOP_HOSTILE_FIGURES overrides the folder) and logs
 * a summary line; scripts/test.mjs sums the files into the tier's one line.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ChildResult } from './child';

export interface RunFigure {
  case: string;
  command: string;
  /** From the start of the child to the error it had to report (or to its end when none was expected). */
  msToError: number;
  peakRssMiB: number;
  crashed: boolean;
  hung: boolean;
  overCap: boolean;
  code: number | null;
}

const runs: RunFigure[] = [];

export function recordRun(caseName: string, command: string, r: ChildResult, msToError = r.ms): void {
  runs.push({ case: caseName, command, msToError, peakRssMiB: r.peakRssMiB, crashed: r.crashed, hung: r.hung, overCap: r.overCap, code: r.code });
}

/** Writes this file's figures and returns its summary line. */
export function writeFigures(testFile: string): string {
  const dir = process.env.KUBELOOP_HOSTILE_FIGURES || join(__dirname, '..', '..', '..', '.test-artifacts', 'hostile');
  mkdirSync(dir, { recursive: true });
  const name = basename(testFile).replace(/\.test\.ts$/, '');
  writeFileSync(join(dir, `${name}.json`), JSON.stringify({ file: name, runs }, null, 1));
  const cases = new Set(runs.map((r) => r.case)).size;
  const worstMs = Math.max(0, ...runs.map((r) => r.msToError));
  const worstRss = Math.max(0, ...runs.map((r) => r.peakRssMiB));
  return (
    `hostile ${name}: ${cases} cases, ${runs.length} runs, crashes ${runs.filter((r) => r.crashed).length}, ` +
    `hangs ${runs.filter((r) => r.hung).length}, worst time to the error ${(worstMs / 1000).toFixed(1)} s, worst peak RSS ${worstRss} MiB`
  );
}
