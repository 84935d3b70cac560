// trunk post-build hook (see Trunk.toml): moves the inline <script type="module"> that trunk
// writes into index.html (it loads the wasm) into its own file, so the page has no inline
// script and can be served with a Content-Security-Policy of `script-src 'self'
// 'wasm-unsafe-eval'`. The file name carries a hash of its content, like trunk's own files.

import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('TRUNK_STAGING_DIR is not set: run this as a trunk hook');
const index = join(dir, 'index.html');
const html = await readFile(index, 'utf8');
const inline = /<script type="module">([\s\S]*?)<\/script>/;
const m = html.match(inline);
if (m) {
  const body = m[1].trim() + '\n';
  const hash = createHash('sha384').update(body).digest();
  const name = `start-${hash.subarray(0, 8).toString('hex')}.js`;
  await writeFile(join(dir, name), body);
  const integrity = `sha384-${hash.toString('base64')}`;
  const tag = `<script type="module" src="/${name}" integrity="${integrity}"></script>`;
  await writeFile(index, html.replace(inline, tag));
}
if (/<script(?![^>]*\bsrc=)[^>]*>/.test(await readFile(index, 'utf8'))) {
  throw new Error('index.html still has an inline script');
}
