// Browser tests of the playground: `podmut playground` serves the page (embedded in the binary,
// transpiled from the exact component `podmut component` writes) and playwright-core drives
// Debian's Chromium. Run by `cargo xtask test` (PODMUT_BIN = the built podmut).
//
// Skips loudly, never silently passes, when Chromium is not installed (`apt-get install chromium`);
// under `cargo xtask ci` (PODMUT_REQUIRE_BROWSER=1) a missing Chromium fails instead.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const CHROMIUM = process.env.PODMUT_CHROMIUM ?? '/usr/bin/chromium';
const PODMUT = process.env.PODMUT_BIN;
const ARTIFACTS = resolve(process.env.PODMUT_ARTIFACTS_DIR ?? join(here, '..', 'test-results'));
// The flags this machine needs (closed network: no background connections; root: no sandbox).
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const skip = !existsSync(CHROMIUM)
  ? `Chromium not found at ${CHROMIUM} (apt-get install -y chromium)`
  : !PODMUT ? 'PODMUT_BIN is not set (run through `cargo xtask test`)' : false;
if (skip && process.env.PODMUT_REQUIRE_BROWSER === '1') {
  throw new Error(`PODMUT_REQUIRE_BROWSER=1 but the browser tests cannot run: ${skip}`);
}
if (skip) console.error(`\n!!! SKIPPING the browser tests: ${skip} !!!\n`);

let server;
let base;
let browser;

async function startServer() {
  const child = spawn(PODMUT, ['playground', '--addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const url = await new Promise((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`podmut playground did not start: ${stderr}`)), 30_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) { clearTimeout(timer); ok(m[1]); }
    });
    child.on('exit', (code) => fail(new Error(`podmut playground exited (${code}): ${stderr}`)));
  });
  return { child, url, stderr: () => stderr };
}

/** A fresh page on the playground; fails the test on any page error. */
async function open(hash = '') {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1400 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(base + hash);
  await page.waitForSelector('body[data-ready=true]', { timeout: 30_000 });
  page.problems = problems;
  return page;
}

const ALLOWED = /^allowed/;
const DENIED = /^denied/;
const ANSWERED = /^(allowed|denied)/;
const CANNOT_JUDGE = /^cannot judge/;

const verdict = (page) => page.textContent('[data-testid=verdict]');

/** Type a Pod into an editor (CodeMirror when mounted, else the textarea), as a person would. */
async function setPod(page, which, text) {
  const editor = await page.$(`[data-testid=${which}-editor]`);
  if (!editor) return page.fill(`[data-testid=${which}]`, text);
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

/** An editor's text (the textarea it mirrors into). */
const podText = (page, which) => page.$eval(`[data-testid=${which}]`, (t) => t.value);

/**
 * Wait until the verdict text matches `re` (the page re-judges ~120 ms after typing). Verdicts
 * start with `allowed`, `denied` or `cannot judge`: match them anchored (`ALLOWED`, `DENIED`,
 * `ANSWERED`, `CANNOT_JUDGE`), so `allowed` never matches inside another verdict's message.
 */
async function verdictMatches(page, re) {
  await page.waitForFunction(
    (src) => new RegExp(src).test(document.querySelector('[data-testid=verdict]').textContent),
    re.source,
    { timeout: 10_000 },
  );
  return verdict(page);
}

const POD = (containers) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '1' },
  spec: { containers: containers.map((name) => ({ name, image: 'busybox' })) },
}, null, 2);

describe('playground in Chromium', { skip }, () => {
  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startServer();
    base = server.url;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  });
  after(async () => {
    await browser?.close();
    server?.child.kill();
  });

  test('loads the component and judges the first example', async () => {
    const page = await open();
    const build = await page.textContent('[data-testid=build]');
    assert.match(build, /component sha256 [0-9a-f]{16}/, 'the page shows which component it runs');
    const text = await verdict(page);
    assert.match(text, ANSWERED, 'the first example gets a verdict');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('the component and the scripts arrive gzip-encoded, and the page runs on them', async () => {
    const page = await browser.newPage();
    const responses = [];
    page.on('response', (r) => responses.push(r));
    await page.goto(base);
    await page.waitForSelector('body[data-ready=true]', { timeout: 30_000 });
    const core = responses.filter((r) => /\/pkg\/podmut\.core\.wasm$/.test(r.url()));
    assert.equal(core.length, 1, 'the page fetched the component\'s core module once');
    for (const r of core.concat(responses.filter((r) => /\/app\.js$/.test(r.url())))) {
      assert.equal(r.headers()['content-encoding'], 'gzip', r.url());
      const { responseBodySize } = await r.request().sizes();
      const decoded = (await r.body()).length;
      assert.ok(responseBodySize < decoded * 0.9, `${r.url()}: ${responseBodySize} B on the wire for ${decoded} B`);
    }
    assert.match(await verdict(page), ANSWERED, 'the page judges with the decoded component');
    await page.close();
  });

  test('editing the new Pod changes the verdict, with the error beside its field', async () => {
    const page = await open();
    await page.selectOption('[data-testid=subresource]', 'none');
    await setPod(page, 'old', POD(['a']));
    await setPod(page, 'new', POD(['a']));
    assert.match(await verdictMatches(page, ALLOWED), ALLOWED);
    // Adding a container through a plain update is forbidden (spec.containers).
    await setPod(page, 'new', POD(['a', 'b']));
    const text = await verdictMatches(page, DENIED);
    assert.match(text, DENIED);
    assert.match(text, /Pod "web" is invalid/);
    const beside = await page.textContent('tr.has-error [data-testid=field-error]');
    assert.match(beside, /^spec\.containers/, 'the error sits beside the field it names');
    // The diff highlights the added container.
    assert.ok(await page.$('tr.added[data-path="spec.containers[1].name"]'), 'added field highlighted');
    // QoS before and after, and the node panels answer or say they are not available.
    assert.match(await page.textContent('[data-testid=qos]'), /BestEffort → BestEffort/);
    for (const id of ['probes', 'allocation']) {
      const t = await page.textContent(`[data-testid=${id}]`);
      assert.ok(t.trim() && !/component failed/.test(t), `${id}: ${t}`);
    }
    assert.equal(await page.$$eval('[data-testid=bars] .bar', (b) => b.length), 2);
    await page.screenshot({ path: join(ARTIFACTS, 'playground-denied.png'), fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('a share link round-trips both Pods and the subresource', async () => {
    const page = await open();
    await page.selectOption('[data-testid=subresource]', 'resize');
    await setPod(page, 'old', POD(['a']));
    await setPod(page, 'new', POD(['a', 'shared']));
    // The page re-judges and rewrites the link ~120 ms after typing: wait for the link to carry
    // the new Pod (decoded in the page), not just for any verdict.
    await page.waitForFunction(() => {
      const h = document.querySelector('[data-testid=share-link]').getAttribute('href') ?? '';
      const v = new URLSearchParams(h.slice(1)).get('new');
      if (!v) return false;
      const b64 = v.replace(/-/g, '+').replace(/_/g, '/');
      try { return new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))).includes('"shared"'); } catch { return false; }
    }, null, { timeout: 10_000 });
    await verdictMatches(page, ANSWERED);
    const href = await page.getAttribute('[data-testid=share-link]', 'href');
    const params = new URLSearchParams(href.slice(1));
    assert.deepEqual([...params.keys()].sort(), ['new', 'old', 'release', 'sub']);
    assert.equal(params.get('sub'), 'resize');
    assert.equal(params.get('release'), 'preview', 'the first example judges with the preview profile');
    const decoded = JSON.parse(Buffer.from(params.get('new'), 'base64url').toString('utf8'));
    assert.equal(decoded.spec.containers[1].name, 'shared', 'new= is base64url JSON of the new Pod');
    const before = await verdict(page);
    await page.close();

    const again = await open(href);
    assert.equal(await again.inputValue('[data-testid=subresource]'), 'resize');
    assert.equal(await again.inputValue('[data-testid=release]'), 'preview');
    assert.match(await podText(again, 'new'), /"shared"/);
    assert.match(await podText(again, 'old'), /"name": "a"/);
    assert.equal(await verdict(again), before, 'the same verdict after the round trip');
    await again.close();
  });

  test('the release picker judges as that release; the KEP-6318 story needs preview', async () => {
    const page = await open('');
    await page.selectOption('[data-testid=example]', 'relax-liveness');
    assert.equal(await page.inputValue('[data-testid=release]'), 'preview', 'the story picks the preview profile');
    assert.match(await verdictMatches(page, /^allowed/), /^allowed/, 'probes are mutable with KEP-6318');
    await page.selectOption('[data-testid=release]', '');
    const denied = await verdictMatches(page, /^denied/);
    assert.match(denied, /pod updates may not change fields/, 'stock 1.37 refuses a probe change');
    await page.selectOption('[data-testid=release]', '1.35');
    assert.match(await verdictMatches(page, /^denied/), /pod updates may not change fields/);
    await page.waitForFunction(() => /release=1\.35/.test(document.querySelector('[data-testid=share-link]').getAttribute('href')));
    const href = await page.getAttribute('[data-testid=share-link]', 'href');
    await page.close();
    const again = await open(href);
    assert.equal(await again.inputValue('[data-testid=release]'), '1.35');
    await again.close();
  });

  test('the strict profile denies an escalating added container; the link keeps the profile', async () => {
    // A running Pod and the same Pod with a worker that adds a capability no container adds.
    const running = (containers) => ({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'pool', namespace: 'default', uid: 'u1', resourceVersion: '1' },
      spec: { containers },
      status: { phase: 'Running', conditions: [{ type: 'Initialized', status: 'True' }] },
    });
    const agent = { name: 'agent', image: 'agent:1', securityContext: { capabilities: { drop: ['ALL'] } } };
    const worker = { name: 'worker', image: 'worker:1', securityContext: { capabilities: { add: ['SYS_ADMIN'] } } };
    const hash = `#old=${Buffer.from(JSON.stringify(running([agent]))).toString('base64url')}` +
      `&new=${Buffer.from(JSON.stringify(running([agent, worker]))).toString('base64url')}&sub=dynamic`;
    const page = await open(hash);
    assert.equal(await page.inputValue('[data-testid=profile]'), 'default');
    assert.match(await verdictMatches(page, /^allowed/), /^allowed/, "KEP-5972's own rules allow it");
    await page.selectOption('[data-testid=profile]', 'strict');
    const denied = await verdictMatches(page, /^denied/);
    assert.match(denied, /capabilities\.add\[0\]/);
    assert.match(await page.textContent('[data-testid=errors]'), /strict\/capabilities-add/);
    await page.waitForFunction(() => /profile=strict/.test(document.querySelector('[data-testid=share-link]').getAttribute('href')));
    const href = await page.getAttribute('[data-testid=share-link]', 'href');
    await page.close();
    const again = await open(href);
    assert.equal(await again.inputValue('[data-testid=profile]'), 'strict');
    assert.match(await verdictMatches(again, /^denied/), /capabilities/);
    await again.close();
  });

  test('invalid YAML shows a clear message, then recovers', async () => {
    const page = await open();
    await setPod(page, 'new', 'apiVersion: v1\nkind: Pod\nspec: [unclosed\n');
    const text = await verdictMatches(page, CANNOT_JUDGE);
    assert.match(text, /New Pod cannot be read/);
    assert.match(await page.textContent('[data-testid=new-status]'), /New Pod is not valid YAML or JSON \(line \d+, column \d+\)/);
    await setPod(page, 'new', await podText(page, 'old'));
    assert.match(await verdictMatches(page, ANSWERED), ANSWERED);
    await page.close();
  });

  test('every KEP story example loads and gets an answer', async () => {
    const page = await open();
    const ids = await page.$$eval('[data-testid=example] option', (os) => os.map((o) => o.value).filter(Boolean));
    assert.ok(ids.length >= 4, `examples: ${ids}`);
    for (const id of ids) {
      await page.selectOption('[data-testid=example]', id);
      // Every example is a Pod change the component can judge: an answer, never "cannot judge".
      const text = await verdictMatches(page, /^(allowed|denied|cannot judge)/);
      assert.match(text, ANSWERED, `${id}: ${text}`);
    }
    // The node panels run the component's node functions on the stories.
    await page.selectOption('[data-testid=example]', 'relax-liveness');
    assert.match(await verdictMatches(page, ALLOWED), ALLOWED);
    const probes = await page.textContent('[data-testid=probes]');
    assert.match(probes, /liveness/, `probe plan: ${probes}`);
    assert.match(probes, /update/, `probe plan: ${probes}`);
    await page.selectOption('[data-testid=example]', 'warm-pool-add');
    assert.match(await verdictMatches(page, ALLOWED), ALLOWED);
    const allocation = await page.textContent('[data-testid=allocation]');
    assert.match(allocation, /^(Allocated|Deferred|Infeasible)/, `allocation: ${allocation}`);
    assert.match(allocation, /add-container/, `allocation: ${allocation}`);
    await page.selectOption('[data-testid=example]', 'add-on-main-resource');
    assert.match(await verdictMatches(page, DENIED), DENIED);
    await page.screenshot({ path: join(ARTIFACTS, 'playground.png'), fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.close();
  });
  test('the editors are CodeMirror with YAML highlighting and line numbers', async () => {
    const page = await open();
    for (const which of ['old', 'new']) {
      assert.ok(await page.$(`[data-testid=${which}-editor]`), `${which}: a CodeMirror editor`);
    }
    assert.ok((await page.$$('.cm-lineNumbers .cm-gutterElement')).length > 5, 'line numbers');
    // The YAML grammar tags keys and values: highlighted spans inside the lines.
    const styled = await page.$$eval('.cm-content .cm-line span', (spans) => spans.filter((s) => s.className).length);
    assert.ok(styled > 5, `highlighted tokens: ${styled}`);
    // Typing in the editor is what the component judges.
    await setPod(page, 'old', POD(['a']));
    await setPod(page, 'new', POD(['a', 'b']));
    assert.match(await verdictMatches(page, DENIED), DENIED);
    await page.close();
  });

  test('under a denied verdict the allocation panel does not say Allocated', async () => {
    const page = await open();
    await page.selectOption('[data-testid=example]', 'add-on-main-resource');
    assert.match(await verdictMatches(page, DENIED), DENIED);
    const allocation = await page.textContent('[data-testid=allocation]');
    assert.doesNotMatch(allocation, /Allocated/, allocation);
    assert.match(allocation, /API server denies the change/, allocation);
    assert.match(await page.textContent('[data-testid=probes]'), /API server denies the change/);
    await page.close();
  });

  test('unknown fields are reported beside their field, per --validate level', async () => {
    const page = await open();
    const typo = POD(['a']).replace('"image": "busybox"', '"image": "busybox", "resource": {"limits": {"cpu": "1"}}');
    await setPod(page, 'old', POD(['a']));
    await setPod(page, 'new', typo);
    const text = await verdictMatches(page, CANNOT_JUDGE);
    assert.match(text, /New Pod: strict decoding error: unknown field "spec\.containers\[0\]\.resource"/);
    const row = await page.$('tr:has([data-testid=field-problem])');
    assert.ok(row, 'a diff row carries the problem');
    assert.match(await row.getAttribute('data-path'), /^spec\.containers\[0\]\.resource/);
    await page.selectOption('[data-testid=validate]', 'warn');
    assert.match(await verdictMatches(page, ANSWERED), ANSWERED);
    assert.match(await page.textContent('[data-testid=warnings]'), /unknown field "spec\.containers\[0\]\.resource"/);
    assert.ok(await page.$('[data-testid=field-problem]'), 'still beside the field under warn');
    await page.selectOption('[data-testid=validate]', 'ignore');
    await verdictMatches(page, ANSWERED);
    assert.equal(await page.$('[data-testid=field-problem]'), null, 'ignore reports nothing');
    await page.close();
  });

  test('old and new values are not broken mid-word', async () => {
    const page = await browser.newPage({ viewport: { width: 700, height: 1200 } });
    await page.goto(base);
    await page.waitForSelector('body[data-ready=true]', { timeout: 30_000 });
    await page.selectOption('[data-testid=example]', 'warm-pool-add');
    await verdictMatches(page, ANSWERED);
    const heights = await page.$$eval('table.diff td.new', (tds) => {
      const line = parseFloat(getComputedStyle(tds[0]).lineHeight) || 17;
      return tds.filter((td) => td.textContent.length > 20).map((td) => [td.textContent, td.getBoundingClientRect().height / line]);
    });
    assert.ok(heights.length > 0, 'long values exist');
    for (const [value, lines] of heights) assert.ok(lines < 1.8, `${value} wraps onto ${lines.toFixed(1)} lines`);
    await page.close();
  });

  test('each error links to its explain entry', async () => {
    const page = await open();
    await page.selectOption('[data-testid=example]', 'add-on-main-resource');
    await verdictMatches(page, DENIED);
    const href = await page.getAttribute('[data-testid=errors] [data-testid=explain-link]', 'href');
    assert.match(href, /^rules\.html#update%2Fcontainer-list$/);
    assert.ok(await page.$('[data-testid=diff] [data-testid=explain-link]'), 'beside the field too');
    // The link opens the entry on the rules page, read from the component's report.rules.
    await page.click('[data-testid=errors] [data-testid=explain-link]');
    await page.waitForSelector('body[data-ready=true]', { timeout: 30_000 });
    assert.match(page.url(), /\/rules\.html#update%2Fcontainer-list$/);
    await page.waitForSelector('[data-testid=explain-entry]:not([hidden])');
    assert.match(await page.textContent('[data-testid=explain-entry] h2'), /podmut explain update\/container-list/);
    assert.match(await page.textContent('[data-testid=explain-description]'), /\S/);
    assert.match(await page.textContent('[data-testid=explain-source]'), /ValidatePodUpdate|validation/);
    const selected = await page.$$eval('[data-testid=rule].selected', (rows) => rows.map((r) => r.id));
    assert.deepEqual(selected, ['update/container-list']);
    const rows = await page.$$eval('[data-testid=rule]', (rs) => rs.length);
    assert.ok(rows > 200, `${rows} rule rows`);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('the rules page says so for an unknown origin', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}rules.html#dynamic%2Fno-such-rule`);
    await page.waitForSelector('body[data-ready=true]', { timeout: 30_000 });
    assert.match(await page.textContent('[data-testid=explain-entry]'), /unknown rule origin "dynamic\/no-such-rule"/);
    assert.match(await page.textContent('[data-testid=build]'), /^\d+ rules; sources refer to Kubernetes v1\./);
    await page.close();
  });

  // ---- the policies panel: policies.evaluate on the page's change ----------------------

  /** Wait until the policies verdict matches `re`; returns its text. */
  async function vapVerdictMatches(page, re) {
    await page.waitForFunction(
      (src) => new RegExp(src).test(document.querySelector('[data-testid=vap-verdict]').textContent),
      re.source,
      { timeout: 10_000 },
    );
    return page.textContent('[data-testid=vap-verdict]');
  }

  const VAP = (expression) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods, pods/*]}]
  validations:
  - expression: ${JSON.stringify(expression)}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: p}
spec: {policyName: p, validationActions: [Deny]}
`;

  /** A running, initialized Pod: pods/dynamic may add containers to it. */
  const RUNNING = (containers) => {
    const pod = JSON.parse(POD(containers));
    pod.status = { phase: 'Running', conditions: [{ type: 'Initialized', status: 'True' }] };
    return JSON.stringify(pod, null, 2);
  };

  test('policies: disable-dynamic-containers denies a pods/dynamic add and allows it on the plain path', async () => {
    const page = await open();
    assert.match(await page.textContent('[data-testid=vap-verdict]'), /^no policies/, 'an empty panel says what to do');
    await page.selectOption('[data-testid=subresource]', 'dynamic');
    await setPod(page, 'old', RUNNING(['a']));
    await setPod(page, 'new', RUNNING(['a', 'b']));
    await page.selectOption('[data-testid=vap-sample]', 'disable-dynamic-containers');
    // The editor holds the sample (checked against policies/vap/ below).
    const { VAP_SAMPLES } = await import('../vap-samples.js');
    assert.equal(await podText(page, 'vap'), VAP_SAMPLES['disable-dynamic-containers'].text);
    const denied = await vapVerdictMatches(page, /^denied/);
    assert.match(denied, /ValidatingAdmissionPolicy 'disable-dynamic-containers' with binding 'disable-dynamic-containers' denied request: Dynamic Containers are disabled/);
    assert.match(await verdictMatches(page, ALLOWED), ALLOWED, "the API server's own rules admit the add on pods/dynamic");
    const row = await page.$('[data-testid=vap-validation][data-policy=disable-dynamic-containers]');
    assert.equal(await row.getAttribute('data-outcome'), 'deny');
    assert.match(await row.textContent(), /object\.spec\.containers\.map\(c, c\.name\) == oldObject/);
    assert.match(await row.textContent(), /Deny/);
    assert.match(await page.textContent('[data-testid=vap-decisions]'), /^Deny disable-dynamic-containers\/disable-dynamic-containers: Dynamic Containers are disabled.*\(reason Invalid\)/);
    assert.match(await page.textContent('[data-testid=allocation]'), /ValidatingAdmissionPolicy denies the change: nothing reaches the node/);
    await page.screenshot({ path: join(ARTIFACTS, 'playground-policies.png'), fullPage: true });

    // The plain path: the policy does not intercept it (the API server itself denies the add).
    await page.selectOption('[data-testid=subresource]', 'none');
    const allowed = await vapVerdictMatches(page, /^allowed/);
    assert.match(allowed, /own validation denies this change first/);
    assert.match(await verdictMatches(page, DENIED), DENIED);
    assert.match(await page.textContent('[data-testid=vap-results]'), /not evaluated/);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('policies: namespace labels select pod-intent-immutable; warnings and audit annotations show', async () => {
    const page = await open();
    await page.selectOption('[data-testid=subresource]', 'none');
    const pod = JSON.parse(POD(['a']));
    await setPod(page, 'old', JSON.stringify(pod, null, 2));
    pod.spec.containers[0].command = ['sh', '-c', 'id'];
    await setPod(page, 'new', JSON.stringify(pod, null, 2));
    await page.selectOption('[data-testid=vap-sample]', 'pod-intent-immutable');
    assert.match(await vapVerdictMatches(page, /^allowed/), /^allowed/, 'an unlabelled namespace is not selected');
    await page.fill('[data-testid=vap-namespace-labels]', 'podmut.io/pod-intent=immutable');
    assert.match(await vapVerdictMatches(page, /^denied/), /containers are immutable, except allowed fields/);
    // A share link carries the policies and the labels.
    await page.waitForFunction(() => /[#&]ns=/.test(document.querySelector('[data-testid=share-link]').getAttribute('href')));
    const href = await page.getAttribute('[data-testid=share-link]', 'href');
    const again = await open(href);
    assert.equal(await again.inputValue('[data-testid=vap-namespace-labels]'), 'podmut.io/pod-intent=immutable');
    assert.equal(await again.inputValue('[data-testid=vap-sample]'), 'pod-intent-immutable');
    assert.match(await vapVerdictMatches(again, /^denied/), /containers are immutable, except allowed fields/);
    await again.close();
    // Warn and Audit: the same policy bound with those actions.
    const warn = (await podText(page, 'vap')).replace('validationActions: [Deny]', 'validationActions: [Warn, Audit]');
    await setPod(page, 'vap', warn);
    assert.match(await vapVerdictMatches(page, /^allowed/), /^allowed/);
    assert.match(await page.textContent('[data-testid=vap-warnings]'), /Validation failed for ValidatingAdmissionPolicy 'pod-intent-immutable'/);
    assert.match(await page.textContent('[data-testid=vap-annotations]'), /validation\.policy\.admission\.k8s\.io\/validation_failure/);
    await page.fill('[data-testid=vap-namespace-labels]', 'no-equals-sign');
    assert.match(await vapVerdictMatches(page, /^cannot evaluate/), /"no-equals-sign" is not key=value/);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('policies: a CEL compile error is shown beside its line, then clears', async () => {
    const page = await open();
    await setPod(page, 'vap', VAP('object.spec.containers.all(c, c.name ==)'));
    const text = await vapVerdictMatches(page, /^cannot evaluate/);
    assert.match(text, /ValidatingAdmissionPolicy "p": spec\.validations\[0\]\.expression: compilation error at line 1, column \d+/);
    assert.match(text, /\(line 8\)$/, text);
    const beside = await page.waitForSelector('[data-testid=editor-problem]');
    assert.match(await beside.textContent(), /spec\.validations\[0\]\.expression: compilation error/);
    // The highlighted line is the expression's line of the editor, and the column the character
    // the CEL parser stopped at (column 40 of the expression: its closing parenthesis).
    assert.match(await page.textContent('.cm-problem-line'), /c\.name ==\)/);
    assert.equal(await page.textContent('.cm-problem-at'), ')');
    await setPod(page, 'vap', VAP('object.spec.containers.all(c, c.name != "")'));
    assert.match(await vapVerdictMatches(page, /^allowed/), /^allowed/);
    assert.equal(await page.$('[data-testid=editor-problem]'), null, 'the mark goes with the error');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('policies: a misspelled Pod field is type-checked beside its line (error, then warn), then clears', async () => {
    const page = await open();
    await page.selectOption('[data-testid=subresource]', 'dynamic');
    await setPod(page, 'old', RUNNING(['a']));
    await setPod(page, 'new', RUNNING(['a', 'b']));
    await page.selectOption('[data-testid=vap-sample]', 'disable-dynamic-containers');
    assert.match(await vapVerdictMatches(page, /^denied/), /Dynamic Containers are disabled/);
    const sample = await podText(page, 'vap');
    const typo = sample.replace('object.spec.containers', 'object.spec.contaners');
    assert.notEqual(typo, sample);
    assert.equal(await page.$eval('[data-testid=vap-type-check]', (s) => s.value), 'error', 'the default is the CLI\'s');
    await setPod(page, 'vap', typo);
    // --type-check error (the default): bad input, as `podmut vap` exits 2, beside the expression's line.
    const text = await vapVerdictMatches(page, /^cannot evaluate/);
    assert.match(text, /ValidatingAdmissionPolicy "disable-dynamic-containers": spec\.validations\[0\]\.expression: type checking error at line 1, column \d+: undefined field 'contaners'/);
    assert.match(text, /\(line 22\)$/, text);
    const beside = await page.waitForSelector('[data-testid=editor-problem]');
    assert.match(await beside.textContent(), /undefined field 'contaners'/);
    assert.match(await page.textContent('.cm-problem-line'), /object\.spec\.contaners\.map/);
    assert.equal(await page.textContent('.cm-problem-at'), '.', 'the column is the selection of the misspelled field');
    // warn: evaluated anyway (the API server's behaviour), the finding listed and still beside its line.
    await page.selectOption('[data-testid=vap-type-check]', 'warn');
    assert.match(await vapVerdictMatches(page, /^denied/), /resulted in error: no such key: contaners/);
    const listed = await page.waitForSelector('[data-testid=vap-type-checking]');
    assert.match(await listed.textContent(), /policy disable-dynamic-containers spec\.validations\[0\]\.expression \(line 22\): \/v1, Kind=Pod: ERROR: <input>:1:\d+: undefined field 'contaners'/);
    await page.waitForSelector('.cm-problem-line.cm-problem-warning');
    assert.match(await page.textContent('.cm-problem-line.cm-problem-warning'), /object\.spec\.contaners/);
    // Fixed: nothing to report.
    await setPod(page, 'vap', sample);
    assert.match(await vapVerdictMatches(page, /^denied — .*Dynamic Containers are disabled/), /denied request/);
    assert.equal(await page.$('[data-testid=editor-problem]'), null, 'the mark goes with the finding');
    assert.equal(await page.$('[data-testid=vap-type-checking]'), null);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('policies: a hostile expression hits the cost limit and the page stays responsive', async () => {
    const page = await open();
    await page.selectOption('[data-testid=subresource]', 'none');
    await setPod(page, 'old', POD(['a']));
    await setPod(page, 'new', POD(['a']));
    await setPod(page, 'vap', VAP('lists.range(1000).all(i, lists.range(1000).all(j, lists.range(1000).all(k, i + j + k >= 0)))'));
    const text = await vapVerdictMatches(page, /^denied/);
    assert.match(text, /cost limit exceeded/, text);
    assert.match(await page.textContent('[data-testid=vap-validation]'), /error/);
    // Still answering: the page's own verdict follows the next edit at once.
    assert.equal(await page.evaluate(() => 1 + 1), 2);
    await setPod(page, 'new', POD(['a', 'b']));
    assert.match(await verdictMatches(page, DENIED), DENIED);
    assert.match(await vapVerdictMatches(page, /^denied/), /cost limit exceeded/);
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});

describe('the embedded policy samples', () => {
  test("are KEP-5972's files in policies/vap, byte for byte", async () => {
    const { VAP_SAMPLES } = await import('../vap-samples.js');
    assert.deepEqual(Object.keys(VAP_SAMPLES).sort(), ['disable-dynamic-containers', 'pod-intent-immutable']);
    for (const [id, sample] of Object.entries(VAP_SAMPLES)) {
      assert.equal(sample.file, `policies/vap/${id}.yaml`);
      assert.equal(sample.text, readFileSync(join(here, '..', '..', sample.file), 'utf8'), `${sample.file} changed: update web/vap-samples.js`);
    }
  });
});

describe('policy errors are placed on their line', () => {
  test('a compile error in a folded expression, a binding field, an unknown object', async () => {
    const { load } = await import('js-yaml');
    const { locateError } = await import('../policies.js');
    const { VAP_SAMPLES } = await import('../vap-samples.js');
    const text = VAP_SAMPLES['pod-intent-immutable'].text;
    const lines = text.split('\n');
    const at = (message) => {
      const where = locateError(text, message, load);
      return where && { line: lines[where.line - 1], char: where.column && lines[where.line - 1][where.column - 1] };
    };
    const policy = 'ValidatingAdmissionPolicy "pod-intent-immutable"';
    // validations[1] is a folded (>) scalar: its line 2 is "  p[0].map(c, c.name) == ..." (the
    // more-indented line keeps its two spaces); column 8 is the first "m" of "map".
    assert.deepEqual(at(`${policy}: spec.validations[1].expression: compilation error at line 2, column 8: x`),
      { line: '          p[0].map(c, c.name) == p[1].map(c, c.name) &&', char: 'm' });
    assert.deepEqual(at(`${policy}: spec.variables[0].expression: compilation error at line 1, column 1: x`),
      { line: '      expression: oldObject.spec', char: 'o' });
    assert.deepEqual(at('ValidatingAdmissionPolicyBinding "pod-intent-immutable": spec.validationActions: Unsupported value: "Dny"'),
      { line: '  validationActions: [Deny]', char: undefined });
    assert.equal(at('ValidatingAdmissionPolicy "other": spec.validations[0].expression: compilation error at line 1, column 1: x'), null);
  });
});

describe('playground without the component', { skip }, () => {
  test('says how to add the component instead of staying at loading', async () => {
    const { mkdtempSync, copyFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'podmut-web-'));
    for (const f of ['index.html', 'app.js', 'editor.js', 'examples.js', 'policies.js', 'vap-samples.js', 'style.css']) copyFileSync(join(here, '..', f), join(dir, f));
    const child = spawn(PODMUT, ['playground', '--addr', '127.0.0.1:0', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await new Promise((ok, fail) => {
      let out = '';
      child.stdout.on('data', (d) => { out += d; const m = /listening on (http:\/\/\S+)/.exec(out); if (m) ok(m[1]); });
      child.on('exit', (code) => fail(new Error(`exited ${code}`)));
    });
    const b = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    try {
      const page = await b.newPage();
      await page.goto(url);
      await page.waitForSelector('body[data-ready=true]', { timeout: 30_000 });
      const text = await verdict(page);
      assert.match(text, /not built into this page/);
      assert.match(text, /cargo xtask web/);
      assert.doesNotMatch(await page.textContent('[data-testid=build]'), /loading/);
      // Without its editor modules the textareas still work.
      assert.equal(await page.$('[data-testid=new-editor]'), null);
      assert.ok(await page.isVisible('[data-testid=new]'));
    } finally {
      await b.close();
      child.kill();
    }
  });
});
