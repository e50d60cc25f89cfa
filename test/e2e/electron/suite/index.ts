/**
 * Entry point @vscode/test-electron calls inside the extension host: runs the bundled mocha suites
 * and resolves only when every test passed.
 */
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: true, timeout: 60_000 });
  // The suites are bundled into this file, so they are loaded by require() after mocha has set up
  // its globals (describe/it) rather than added as files.
  mocha.suite.emit('pre-require', globalThis, 'bundle', mocha);
  require('./smoke.suite');
  require('./cluster.suite');
  require('./relations.suite');
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} test(s) failed`)) : resolve()));
  });
}
