import { join, resolve } from 'node:path';
import { homedir } from 'node:os';

export const repoRoot = resolve(__dirname, '../../..');
export const artifactsDir = join(repoRoot, '.test-artifacts');
export const e2eArtifactsDir = join(artifactsDir, 'e2e');
export const cacheDir = process.env.KUBELOOP_CACHE ?? join(homedir(), '.cache', 'kubeloop');
export const CODE_SERVER_VERSION = '4.100.3';
/** Where scripts/install-code-server.sh puts the executable. */
export const codeServerExe = join(cacheDir, `code-server-${CODE_SERVER_VERSION}`, 'node_modules', '.bin', 'code-server');
export const chromiumExe = process.env.KUBELOOP_CHROMIUM ?? '/usr/bin/chromium';
