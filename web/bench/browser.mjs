// Per-call latency of the component in Chromium (browser preview2-shim, import map, no bundler):
//   PODMUT_BIN=target/debug/podmut node bench/browser.mjs [calls=2000]
// Serves the playground with `podmut playground`, loads it in Debian's Chromium, and times
// admission.review on the fixture inside the page; also reports what the page fetched.
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';
import { review } from './fixture.mjs';

const calls = Number(process.argv[2] ?? 2000);
// PODMUT_PLAYGROUND_URL: an already running server instead of starting `podmut playground`.
const child = process.env.PODMUT_PLAYGROUND_URL
  ? null
  : spawn(process.env.PODMUT_BIN, ['playground', '--addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const base = process.env.PODMUT_PLAYGROUND_URL ?? await new Promise((ok) => {
  let out = '';
  child.stdout.on('data', (d) => { out += d; const m = /listening on (\S+)/.exec(out); if (m) ok(m[1]); });
});
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
const page = await browser.newPage();
const fetched = [];
// bytes: the decoded body; wire: the body as sent (gzip-encoded where the server encodes it).
page.on('response', async (r) => fetched.push({
  url: r.url().replace(base, '/'),
  bytes: (await r.body().catch(() => Buffer.alloc(0))).length,
  wire: (await r.request().sizes().catch(() => ({ responseBodySize: 0 }))).responseBodySize,
  encoding: r.headers()['content-encoding'] ?? null,
}));
const t0 = Date.now();
await page.goto(base);
await page.waitForSelector('body[data-ready=true]');
const loadMs = Date.now() - t0;
const result = await page.evaluate(async ({ text, calls }) => {
  const { admission } = await import('./pkg/podmut.js');
  for (let i = 0; i < 200; i++) admission.review(text, '');
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) admission.review(text, '');
  return { meanMicros: ((performance.now() - t0) * 1000) / calls };
}, { text: JSON.stringify(review(5)), calls });
const total = fetched.reduce((s, f) => s + f.bytes, 0);
const wire = fetched.reduce((s, f) => s + f.wire, 0);
console.log(JSON.stringify({ host: 'chromium', version: browser.version(), calls, meanMicros: +result.meanMicros.toFixed(1), pageLoadMs: loadMs, fetchedFiles: fetched.length, fetchedBytes: total, wireBytes: wire, fetched }));
await browser.close();
child?.kill();
