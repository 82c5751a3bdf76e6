// Per-call latency of the jco-transpiled component in Node (Node's preview2-shim):
//   node bench/node.mjs [calls=2000]      (after `cargo xtask web`)
// Calls admission.review on the fixture; prints mean µs per call after a warm-up.
import { review } from './fixture.mjs';

const { admission } = await import('../pkg/podmut.js');
const calls = Number(process.argv[2] ?? 2000);
const text = JSON.stringify(review(5));
const check = JSON.parse(admission.review(text, ''));
if (check.response?.uid !== '705ab4f5-6393-11e8-b7cc-42010a800002') throw new Error('unexpected answer');
for (let i = 0; i < 200; i++) admission.review(text, '');
const t0 = process.hrtime.bigint();
for (let i = 0; i < calls; i++) admission.review(text, '');
const us = Number(process.hrtime.bigint() - t0) / 1e3 / calls;
console.log(JSON.stringify({ host: 'node', node: process.version, inputBytes: text.length, calls, meanMicros: +us.toFixed(1), allowed: check.response.allowed }));
