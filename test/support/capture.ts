/**
 * Captures what a CLI command (runLoad, runSync...) writes: pass `io` as its streams, read `out` and
 * `err` afterwards. Nothing is written anywhere else.
 */
export function capture() {
  let out = '';
  let err = '';
  return {
    io: { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } },
    get out() {
      return out;
    },
    get err() {
      return err;
    },
  };
}
