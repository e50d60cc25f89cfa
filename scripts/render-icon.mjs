#!/usr/bin/env node
// Renders the Marketplace icon media/icon.png (128x128 PNG, as vsce requires: no SVG icons) from the
// activity-bar glyph media/kubeloop.svg, drawn white on a rounded blue tile, in Debian's Chromium via
// playwright-core. Run it after changing media/kubeloop.svg: node scripts/render-icon.mjs
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const root = new URL('..', import.meta.url).pathname;
const glyph = readFileSync(`${root}media/kubeloop.svg`, 'utf8').replace('<svg ', '<svg style="width:96px;height:96px;color:#fff" ');
const html = `<!doctype html><html><body style="margin:0;background:transparent">
<div style="width:128px;height:128px;border-radius:24px;background:linear-gradient(160deg,#3970e4,#1d3f9a);display:flex;align-items:center;justify-content:center">${glyph}</div>
</body></html>`;

const browser = await chromium.launch({
  executablePath: process.env.KUBELOOP_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage({ viewport: { width: 128, height: 128 }, deviceScaleFactor: 1 });
  await page.setContent(html);
  await page.screenshot({ path: `${root}media/icon.png`, omitBackground: true, clip: { x: 0, y: 0, width: 128, height: 128 } });
} finally {
  await browser.close();
}
console.log(`${root}media/icon.png`);
