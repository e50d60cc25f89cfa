/**
 * A self-signed serving certificate made at start-up, valid for 127.0.0.1, ::1, localhost and the
 * host the server binds. Made with the `openssl` command (present on Debian and in CI); the
 * certificate doubles as the CA a kubeconfig trusts (certificate-authority-data).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ServingCert {
  cert: string;
  key: string;
}

export async function selfSignedCert(host: string, signal?: AbortSignal): Promise<ServingCert> {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloop-demo-tls-'));
  try {
    const sans = new Set(['IP:127.0.0.1', 'IP:::1', 'DNS:localhost']);
    if (host && host !== '0.0.0.0' && host !== '::') sans.add(isIP(host) ? `IP:${host}` : `DNS:${host}`);
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    await new Promise<void>((resolve, reject) => {
      execFile(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          keyPath,
          '-out',
          certPath,
          '-days',
          '365',
          '-subj',
          '/CN=kubeloop-demo-apiserver',
          '-addext',
          `subjectAltName=${[...sans].join(',')}`,
        ],
        { signal, timeout: 30_000 },
        (err, _stdout, stderr) =>
          err ? reject(new Error(`openssl could not make the demo cluster's serving certificate: ${stderr || err.message}`)) : resolve(),
      );
    });
    return { cert: await readFile(certPath, 'utf8'), key: await readFile(keyPath, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
