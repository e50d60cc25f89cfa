/** Debian's Chromium, driven by playwright-core (whose own browser download cannot run here). */
import { chromium, type Browser } from 'playwright-core';
import { existsSync } from 'node:fs';
import { chromiumExe } from './paths';

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(chromiumExe)) throw new Error(`${chromiumExe} not found: run scripts/install-code-server.sh (it installs Debian's chromium)`);
  return chromium.launch({
    executablePath: chromiumExe,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}
