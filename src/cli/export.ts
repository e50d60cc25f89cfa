/**
 * `kubeloop export`: a flight recording (kubeloop sync --record) as a Chrome trace or JSON lines.
 *
 *   kubeloop export RECORDING|- OUT|- --format trace|jsonl
 *
 * RECORDING `-` reads one segment from stdin; OUT `-` writes to stdout; a file OUT is created 0600
 * (it holds what the recording holds). Exit 0 when written, 1 on
 * bad flags or input that is not a recording. A recording cut off mid-block exports up to its last
 * whole block (the cut is reported on stderr).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { Recording } from '../core/recorder/reader';
import { jsonLine, writeTrace } from '../core/recorder/export';
import { cliWriter, terminalSafe } from './terminal';

/** Messages quote a recording's content (a tenant's object names): through cliWriter. */
const stderr = cliWriter(process.stderr);
import { RECORDING_FILE_MODE } from '../core/recorder/segments';

const HELP = `usage: kubeloop export RECORDING|- OUT|- --format trace|jsonl

  RECORDING             a recording written by kubeloop sync --record (its older segments
                        RECORDING.1, RECORDING.2, ... are read too); - reads one from stdin
  OUT                   the file to write; - writes to stdout
  --format trace        Chrome Trace Event format (opens in Perfetto and chrome://tracing)
  --format jsonl        one JSON object per record: header, keyframe objects, deltas, timeline events
`;

async function readStdin(signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) {
    if (signal.aborted) throw new Error('interrupted');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

function writer(out: string): { write: (s: string) => Promise<void>; end: () => Promise<void> } {
  const stream: NodeJS.WritableStream =
    out === '-' ? process.stdout : (createWriteStream(out, { mode: RECORDING_FILE_MODE }) as WriteStream as NodeJS.WritableStream);
  let failed: Error | undefined;
  stream.on('error', (e: Error) => (failed = e));
  return {
    write: (s) =>
      new Promise<void>((resolve, reject) => {
        if (failed) return reject(failed);
        // To a terminal: the recording's text with its control characters shown (terminal.ts).
        if (stream.write(out === '-' && process.stdout.isTTY ? terminalSafe(s) : s)) resolve();
        else stream.once('drain', () => resolve());
      }),
    end: () =>
      new Promise<void>((resolve, reject) => {
        if (failed) return reject(failed);
        if (out === '-') return resolve();
        stream.end(() => (failed ? reject(failed) : resolve()));
      }),
  };
}

export async function runExport(argv: string[], signal: AbortSignal = new AbortController().signal): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { format: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (e) {
    stderr.write(`kubeloop export: ${(e as Error).message}\n\n${HELP}`);
    return 1;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const format = values.format;
  if (positionals.length !== 2 || (format !== 'trace' && format !== 'jsonl')) {
    stderr.write(`kubeloop export: expected RECORDING OUT --format trace|jsonl\n\n${HELP}`);
    return 1;
  }
  const [input, out] = positionals as [string, string];
  let rec: Recording;
  try {
    rec = input === '-' ? await Recording.fromBuffer(await readStdin(signal), signal) : await Recording.open(input, signal);
  } catch (e) {
    stderr.write(`kubeloop export: ${input}: ${(e as Error).message}\n`);
    return 1;
  }
  try {
    const w = writer(out);
    if (format === 'trace') await writeTrace(rec.records(signal), w.write);
    else for await (const r of rec.records(signal)) await w.write(jsonLine(r) + '\n');
    await w.end();
    for (const d of rec.damage) stderr.write(`kubeloop export: segment ${d.segment}: ${d.bytes} damaged or cut-off bytes at ${d.at} skipped\n`);
  } catch (e) {
    stderr.write(`kubeloop export: ${(e as Error).message}\n`);
    return 1;
  } finally {
    rec.close();
  }
  return 0;
}
