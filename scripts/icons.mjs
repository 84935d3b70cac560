// Renders www/icons/icon.svg to the PNG sizes the web app manifest lists (192 and 512 px),
// with the system Chromium. The PNGs are committed; run this after changing the SVG:
//
//   node scripts/icons.mjs
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(root + 'tests/e2e/package.json');
const { chromium } = require('playwright-core');

const svg = await readFile(root + 'www/icons/icon.svg', 'utf8');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
for (const size of [192, 512]) {
  const page = await browser.newPage({ viewport: { width: size, height: size } });
  const html = `<html><body style="margin:0">${svg.replace('<svg ', `<svg width="${size}" height="${size}" `)}</body></html>`;
  await page.setContent(html);
  await page.screenshot({ path: `${root}www/icons/icon-${size}.png`, omitBackground: false });
  await page.close();
}
await browser.close();
console.log('wrote www/icons/icon-192.png and icon-512.png');
