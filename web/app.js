// The podmut playground: the podmut component (transpiled by jco into pkg/) judges the Pods typed
// into the page, live. Every verdict, QoS class, probe plan and allocation comes from the component;
// this file only parses YAML for the diff view, renders, and keeps the share link in sync.
import { EXAMPLES } from './examples.js';
import { mountEditor } from './editor.js';
import { mountPolicies } from './policies.js';

const $ = (id) => document.getElementById(id);
const ui = {
  build: $('build'), example: $('example'), sub: $('sub'), release: $('release'), profile: $('profile'), share: $('share'), shareLink: $('share-link'),
  old: $('old'), new: $('new'), oldStatus: $('old-status'), newStatus: $('new-status'),
  verdict: $('verdict'), errors: $('errors'), warnings: $('warnings'), qos: $('qos'), probes: $('probes'),
  nodeCpu: $('node-cpu'), nodeMemory: $('node-memory'), bars: $('bars'), allocation: $('allocation'),
  diff: $('diff').querySelector('tbody'), validate: $('validate'),
};

const SUBRESOURCES = ['none', 'dynamic', 'ephemeral-containers', 'resize', 'status'];
// The settings profiles: '' is the defaults; strict is policies/strict.yaml's setting (a host test
// checks that the two agree).
const PROFILES = { default: '', strict: '{"securityContextEscalation":"forbid"}' };
// The release picker's values: '' is podmut's default (stock 1.37).
const RELEASES = ['', '1.36', '1.35', 'preview'];
const settings = () => {
  const profile = PROFILES[ui.profile.value] ?? '';
  if (!ui.release.value) return profile;
  return JSON.stringify({ ...(profile ? JSON.parse(profile) : {}), kubernetesVersion: ui.release.value });
};
const NOT_AVAILABLE = 'not available in this build';

// ---- the component -----------------------------------------------------------------------------

// Nothing here is imported statically: without pkg/ (no `cargo xtask web` yet) the page still runs
// and says how to add the component instead of staying at "loading".
const HOW_TO_ADD =
  'build it into the page with `cargo xtask web` (needs Node.js and npm), then rebuild podmut ' +
  '(`cargo build -p podmut`) or serve the directory with `podmut playground --dir web`';

let parseYaml = (text) => JSON.parse(text);
try {
  ({ load: parseYaml } = await import('js-yaml'));
} catch {
  // JSON still parses for the diff view; the component reads YAML itself.
}

let podmut = null;
try {
  podmut = await import('./pkg/podmut.js');
  const manifest = await fetch('./pkg/manifest.json').then((r) => (r.ok ? r.json() : null)).catch(() => null);
  ui.build.textContent = manifest
    ? `component sha256 ${manifest.component.sha256.slice(0, 16)}…, ${(manifest.component.raw / 1024).toFixed(0)} KiB` +
      ` (${(manifest.component.gzip / 1024).toFixed(0)} KiB gzip), jco-transpile ${manifest.versions['jco-transpile']}`
    : 'component loaded';
} catch (e) {
  ui.build.textContent = `No component in this page: ${HOW_TO_ADD}.`;
  ui.verdict.className = 'verdict invalid';
  ui.verdict.dataset.state = 'no-component';
  ui.verdict.textContent =
    `The podmut component is not built into this page: ${HOW_TO_ADD}. (${String(e?.message ?? e)})`;
}

/**
 * The WIT `input-error` of a failed call, as `{tag, val}`, or null for other exceptions. jco throws
 * the `result`'s error value itself (older jco wrapped it in a `ComponentError` with `.payload`).
 */
function inputError(e) {
  const p = e && typeof e === 'object' && 'tag' in e ? e : e?.payload;
  return p && typeof p === 'object' && 'tag' in p ? p : null;
}

/** A human sentence for an `input-error`. */
function describeInputError(err) {
  if (err.tag === 'not-implemented') return `${NOT_AVAILABLE} (${err.val})`;
  const kind = { malformed: 'cannot be read', 'wrong-kind': 'is not the right kind', 'too-large': 'is too large', 'bad-settings': 'is not valid' }[err.tag] ?? err.tag;
  const input = { 'old-pod': 'Old Pod', 'new-pod': 'New Pod', pod: 'Pod' }[err.val.input] ?? err.val.input;
  return `${input} ${kind}: ${err.val.message}`;
}

/** Call a component function; returns {ok} or {err: sentence, notImplemented}. */
function call(fn) {
  try {
    return { ok: fn() };
  } catch (e) {
    const err = inputError(e);
    if (!err) return { err: `the component failed: ${e?.message ?? e}` };
    return { err: describeInputError(err), notImplemented: err.tag === 'not-implemented', inputError: err };
  }
}

// ---- share links: #old=<base64url JSON>&new=<base64url JSON>&sub=<subresource>[&profile=strict] --
// (and the policies panel's entries: vap=, params= as base64url text, ns=, user=)

function toBase64Url(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(s) {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

/** The share link of the current state; Pods travel as JSON (the YAML is re-parsed first). */
function shareHash() {
  const part = (text) => {
    if (!text.trim()) return '';
    try {
      return toBase64Url(JSON.stringify(parseYaml(text)));
    } catch {
      return toBase64Url(text); // unparsable text travels as is; the component reports it on load
    }
  };
  const params = new URLSearchParams();
  const oldPart = part(ui.old.value);
  if (oldPart) params.set('old', oldPart);
  params.set('new', part(ui.new.value));
  params.set('sub', ui.sub.value);
  if (ui.profile.value !== 'default') params.set('profile', ui.profile.value);
  if (ui.release.value) params.set('release', ui.release.value);
  for (const [k, v] of Object.entries(policies?.share() ?? {})) params.set(k, v);
  return '#' + params.toString();
}

/** Load the state in a share link; returns false when the fragment carries none. */
function loadHash(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  if (!params.has('new')) return false;
  const pod = (key) => {
    if (!params.get(key)) return '';
    const text = fromBase64Url(params.get(key));
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  };
  setText(ui.old, pod('old'));
  setText(ui.new, pod('new'));
  const sub = params.get('sub') ?? 'none';
  ui.sub.value = SUBRESOURCES.includes(sub) ? sub : 'none';
  const profile = params.get('profile') ?? 'default';
  ui.profile.value = Object.hasOwn(PROFILES, profile) ? profile : 'default';
  const release = params.get('release') ?? '';
  ui.release.value = RELEASES.includes(release) ? release : '';
  policies?.load(params);
  return true;
}

// ---- parsing (for the diff view only; the component parses for itself) ------------------------

function parsePod(text, statusEl, label) {
  statusEl.className = 'parse';
  if (!text.trim()) {
    statusEl.textContent = label === 'Old Pod' ? 'empty: the change is judged as a create' : 'empty';
    return { value: null, ok: label === 'Old Pod' };
  }
  try {
    const value = parseYaml(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new Error('expected a Pod object (a mapping with apiVersion, kind, metadata, spec)');
    }
    statusEl.className = 'parse ok';
    statusEl.textContent = `${label}: ${value.kind ?? '?'} ${value.metadata?.name ?? ''}`;
    return { value, ok: true };
  } catch (e) {
    statusEl.className = 'parse bad';
    const where = e.mark ? ` (line ${e.mark.line + 1}, column ${e.mark.column + 1})` : '';
    statusEl.textContent = `${label} is not valid YAML or JSON${where}: ${e.reason ?? e.message}`;
    return { value: null, ok: false };
  }
}

// ---- the diff ------------------------------------------------------------------------------------

// Map-typed fields render their keys as upstream `field.Path` does: `limits[memory]`.
const MAP_FIELDS = new Set(['labels', 'annotations', 'limits', 'requests', 'nodeSelector', 'allocatable', 'capacity', 'allocatedResources', 'overhead']);

function flatten(value, path, parentKey, out) {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    if (entries.length === 0) out.set(path, Array.isArray(value) ? '[]' : '{}');
    for (const [k, v] of entries) {
      let p;
      if (Array.isArray(value)) p = `${path}[${k}]`;
      else if (MAP_FIELDS.has(parentKey)) p = `${path}[${k}]`;
      else p = path ? `${path}.${k}` : String(k);
      flatten(v, p, Array.isArray(value) ? parentKey : k, out);
    }
  } else {
    out.set(path, value === undefined ? '' : JSON.stringify(value));
  }
  return out;
}

/** Error paths point at a field; show each beside the first diff row at or under that field. */
function rowFor(rows, field) {
  if (!field) return null;
  const exact = rows.find((r) => r.path === field);
  if (exact) return exact;
  return rows.find((r) => r.path.startsWith(field + '.') || r.path.startsWith(field + '[')) ?? null;
}

function renderDiff(oldPod, newPod, errors) {
  const o = flatten(oldPod ?? {}, '', '', new Map());
  const n = flatten(newPod ?? {}, '', '', new Map());
  const paths = [...n.keys()];
  for (const p of o.keys()) if (!n.has(p)) paths.push(p);
  const rows = paths.map((path) => {
    const a = o.get(path);
    const b = n.get(path);
    const kind = a === undefined ? 'added' : b === undefined ? 'removed' : a === b ? 'same' : 'changed';
    return { path, a: a ?? '', b: b ?? '', kind, errors: [] };
  });
  const unplaced = [];
  for (const e of errors) {
    const row = rowFor(rows, e.field);
    if (row) row.errors.push(e);
    else unplaced.push(e);
  }
  for (const e of unplaced) rows.unshift({ path: e.field || '(whole object)', a: '', b: '', kind: 'same', errors: [e] });
  ui.diff.replaceChildren(
    ...rows.map((r) => {
      const tr = document.createElement('tr');
      tr.className = r.kind + (r.errors.length ? ' has-error' : '');
      tr.dataset.path = r.path;
      const field = document.createElement('td');
      field.className = 'field';
      field.textContent = r.path;
      for (const e of r.errors) {
        const span = document.createElement('span');
        span.className = e.kind ? 'field-error field-problem' : 'field-error';
        span.dataset.testid = e.kind ? 'field-problem' : 'field-error';
        span.textContent = e.kind ? `${e.input === 'old-pod' ? 'old' : 'new'}: ${e.message}` : `${e.field}: ${e.message}`;
        if (e.origin) span.append(' ', explainLink(e.origin));
        field.append(span);
      }
      const a = document.createElement('td');
      a.className = 'old';
      a.textContent = r.a;
      const b = document.createElement('td');
      b.className = 'new';
      b.textContent = r.b;
      tr.append(field, a, b);
      return tr;
    }),
  );
}

// ---- quantities (display only: the bar chart) ----------------------------------------------------

const SUFFIX = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };

function quantity(q) {
  const m = /^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/.exec(String(q ?? '').trim());
  return m ? Number(m[1]) * SUFFIX[m[2] ?? ''] : NaN;
}

/** Sum of container requests (requests default to limits) as the kubelet counts a Pod. */
function requested(pod, resource) {
  const containers = pod?.spec?.containers ?? [];
  let sum = 0;
  for (const c of containers) {
    const v = c?.resources?.requests?.[resource] ?? c?.resources?.limits?.[resource];
    if (v !== undefined && !Number.isNaN(quantity(v))) sum += quantity(v);
  }
  return sum;
}

function human(resource, v) {
  if (resource === 'cpu') return `${+(v).toFixed(3)}`;
  return v >= 2 ** 30 ? `${(v / 2 ** 30).toFixed(2)}Gi` : `${(v / 2 ** 20).toFixed(0)}Mi`;
}

function renderBars(oldPod, newPod) {
  const alloc = { cpu: quantity(ui.nodeCpu.value), memory: quantity(ui.nodeMemory.value) };
  ui.bars.replaceChildren(
    ...['cpu', 'memory'].map((r) => {
      const row = document.createElement('div');
      row.className = 'bar';
      row.dataset.resource = r;
      const label = document.createElement('span');
      label.textContent = r;
      const track = document.createElement('div');
      track.className = 'track';
      const before = requested(oldPod, r);
      const after = requested(newPod, r);
      const cap = alloc[r];
      const pct = (v) => (Number.isFinite(cap) && cap > 0 ? Math.min(100, (100 * v) / cap) : 0);
      const fillNew = document.createElement('div');
      fillNew.className = 'fill' + (after > cap ? ' over' : '');
      fillNew.style.width = pct(after) + '%';
      const fillOld = document.createElement('div');
      fillOld.className = 'fill old';
      fillOld.style.width = pct(before) + '%';
      track.append(fillNew, fillOld);
      const text = document.createElement('span');
      text.textContent = Number.isFinite(cap)
        ? `${human(r, after)} of ${human(r, cap)}` + (oldPod ? ` (was ${human(r, before)})` : '')
        : `allocatable ${r} is not a quantity`;
      row.append(label, track, text);
      return row;
    }),
  );
}

// ---- rendering the component's answers -----------------------------------------------------------

const ERROR_TYPE = {
  required: 'FieldValueRequired', invalid: 'FieldValueInvalid', forbidden: 'FieldValueForbidden',
  'not-supported': 'FieldValueNotSupported', duplicate: 'FieldValueDuplicate', 'not-found': 'FieldValueNotFound',
  'too-long': 'FieldValueTooLong', 'too-many': 'FieldValueTooMany', internal: 'InternalError',
  'node-capacity': 'NodeCapacity', 'unsupported-platform': 'UnsupportedPlatform',
};

function li(parent, html) {
  const el = document.createElement('li');
  el.append(...html);
  parent.append(el);
}

function code(text) {
  const c = document.createElement('code');
  c.textContent = text;
  return c;
}

/** The rule id, linked to its `podmut explain` entry. */
function explainLink(origin) {
  const a = document.createElement('a');
  a.className = 'explain';
  a.dataset.testid = 'explain-link';
  a.href = `rules.html#${encodeURIComponent(origin)}`;
  a.title = `podmut explain ${origin}`;
  a.append(code(origin));
  return a;
}

function renderVerdict(result) {
  ui.errors.replaceChildren();
  ui.warnings.replaceChildren();
  if (result.err) {
    ui.verdict.className = 'verdict invalid';
    ui.verdict.textContent = `cannot judge: ${result.err}`;
    return [];
  }
  const v = result.ok;
  ui.verdict.className = 'verdict ' + (v.allowed ? 'allowed' : 'denied');
  ui.verdict.textContent = v.allowed ? 'allowed' : `denied — ${v.message}`;
  for (const e of v.errors) {
    li(ui.errors, [code(e.field || '""'), ` ${ERROR_TYPE[e.type] ?? e.type}: ${e.detail} `, explainLink(e.origin)]);
  }
  for (const w of v.warnings) li(ui.warnings, [w]);
  return v.errors;
}

// ---- field validation: unknown and duplicate fields, read by the component -----------------------

const PROBLEM = /(unknown|duplicate) field "([^"]+)"/g;

/** The field problems in an API-server message (`strict decoding error: unknown field "spec.x", ...`). */
function problemsIn(text, input) {
  return [...String(text).matchAll(PROBLEM)].map((m) => ({ field: m[2], kind: m[1], input, message: `${m[1]} field "${m[2]}"` }));
}

/**
 * Read a Pod through the component's `inputs.read-documents` at the chosen `--validate` level:
 * `{problems, error}` — the unknown/duplicate fields (to show beside their field) and, under
 * strict or for an unreadable Pod, why it cannot be judged.
 */
function readPod(text, input, label) {
  if (!text.trim() || !podmut?.inputs) return { problems: [], error: null };
  const r = call(() => podmut.inputs.readDocuments(text, input, 'pod', ui.validate.value));
  if (r.err) return { problems: [], error: null }; // the judging call names the problem itself
  const docs = r.ok;
  if (docs.length !== 1) return { problems: [], error: `${label}: expected one Pod, found ${docs.length}` };
  const d = docs[0];
  const problems = [...d.warnings.flatMap((w) => problemsIn(w, input)), ...problemsIn(d.error ?? '', input)];
  return { problems, error: d.error ? `${label}: ${d.error}` : null };
}

// ---- the node side: one `report.plan` call, so the panels tell the verdict's story -------------

function nodeDocument(newPod) {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Node', metadata: { name: newPod?.spec?.nodeName ?? 'node' },
    status: { allocatable: { cpu: ui.nodeCpu.value, memory: ui.nodeMemory.value, pods: '110' } },
  });
}

const QOS = { guaranteed: 'Guaranteed', burstable: 'Burstable', 'best-effort': 'BestEffort' };

function renderQos(before, after) {
  ui.qos.textContent = before ? `${before} → ${after}` : after;
  ui.qos.classList.toggle('changed', Boolean(before) && before !== after);
}

function skippedNote(el, why) {
  const p = document.createElement('p');
  p.className = 'na';
  p.dataset.testid = 'skipped';
  p.textContent = why;
  el.replaceChildren(p);
}

function notAvailable(el, r) {
  skippedNote(el, r.notImplemented ? `The ${el === ui.probes ? 'probe plan' : 'allocation view'} is ${NOT_AVAILABLE}.` : r.err);
}

function renderProbePlan(plan) {
  const acting = plan.actions.filter((a) => a.action !== 'none');
  if (acting.length === 0) {
    ui.probes.textContent = plan.reconciled ? 'no probe worker changes' : `no probe reconciliation: ${plan.reason}`;
    return;
  }
  const table = document.createElement('table');
  table.className = 'probes';
  table.innerHTML = '<tr><th>container</th><th>probe</th><th>action</th><th>changed</th><th>effect</th></tr>';
  for (const a of acting) {
    const tr = table.insertRow();
    for (const t of [a.container, a.probe, a.action, a.changedFields.join(', '), [a.readyEffect, a.resetCounts ? 'counts reset' : ''].filter(Boolean).join(', ')]) {
      tr.insertCell().textContent = t;
    }
  }
  ui.probes.replaceChildren(table);
}

function renderDecision(d) {
  const p = document.createElement('p');
  const outcome = String(d.outcome);
  const strong = document.createElement('strong');
  strong.textContent = outcome.charAt(0).toUpperCase() + outcome.slice(1);
  p.append(strong, d.message ? ` — ${d.message}` : '');
  const list = document.createElement('ul');
  for (const c of d.changes ?? []) {
    li(list, [code(c.kind), c.container ? ` ${c.container}` : '', c.detail ? `: ${c.detail}` : '']);
  }
  ui.allocation.replaceChildren(p, list);
}

/** An update: the plan gives QoS, probes and allocation together (skipped under a denial). */
function renderPlan(oldText, newText, newPod) {
  const r = call(() => podmut.report.plan(oldText, newText, ui.sub.value, nodeDocument(newPod), undefined, settings()));
  if (r.err) {
    for (const el of [ui.probes, ui.allocation]) notAvailable(el, r);
    ui.qos.textContent = r.notImplemented ? NOT_AVAILABLE : '—';
    return;
  }
  const plan = r.ok;
  renderQos(QOS[plan.qos.before] ?? plan.qos.before, QOS[plan.qos.after] ?? plan.qos.after);
  if (plan.probes) renderProbePlan(plan.probes);
  else skippedNote(ui.probes, plan.probesSkipped);
  if (plan.allocation) renderDecision(plan.allocation);
  else skippedNote(ui.allocation, plan.allocationSkipped);
}

/** A create: its QoS class, and the allocation only when the API server would admit it. */
function renderCreate(newText, newPod, allowed) {
  const q = call(() => podmut.node.qos(newText, { applyDefaults: true, alwaysCompute: true }));
  renderQos(null, q.err ? `(${q.err})` : QOS[q.ok] ?? q.ok);
  ui.probes.textContent = 'a create: every probe starts fresh';
  if (!allowed) return skippedNote(ui.allocation, 'the API server denies the create: nothing reaches the node');
  const request = { node: JSON.parse(nodeDocument(newPod)), allocatedPods: [], allocated: newPod, desired: newPod };
  const r = call(() => podmut.node.allocate(JSON.stringify(request)));
  if (r.err) return notAvailable(ui.allocation, r);
  renderDecision(r.ok);
}

// ---- the loop ---------------------------------------------------------------------------------

function update() {
  const oldText = ui.old.value;
  const newText = ui.new.value;
  const hash = shareHash();
  ui.shareLink.href = hash;
  if (location.hash !== hash) history.replaceState(null, '', hash);
  const oldParsed = parsePod(oldText, ui.oldStatus, 'Old Pod');
  const newParsed = parsePod(newText, ui.newStatus, 'New Pod');
  renderBars(oldParsed.value, newParsed.value);
  if (!podmut) return;
  const oldRead = readPod(oldText, 'old-pod', 'Old Pod');
  const newRead = readPod(newText, 'new-pod', 'New Pod');
  const problems = [...oldRead.problems, ...newRead.problems];
  const strict = oldRead.error ?? newRead.error;
  const verdict = strict
    ? { err: strict }
    : call(() => podmut.validate.check(oldText.trim() ? oldText : undefined, newText, ui.sub.value, settings()));
  const errors = renderVerdict(verdict);
  const vap = policies?.render(oldText, newText, ui.sub.value, verdict.ok ?? null);
  if (!strict) for (const p of problems) li(ui.warnings, [p.input === 'old-pod' ? 'Old Pod: ' : 'New Pod: ', p.message]);
  renderDiff(oldParsed.value, newParsed.value, [...errors, ...problems]);
  if (verdict.err) {
    ui.qos.textContent = '—';
    for (const el of [ui.probes, ui.allocation]) skippedNote(el, 'not planned: the change cannot be judged');
    return;
  }
  if (oldText.trim()) renderPlan(oldText, newText, newParsed.value);
  else renderCreate(newText, newParsed.value, verdict.ok.allowed);
  // As `podmut plan --policy`: under a policy's denial nothing reaches the node.
  if (verdict.ok.allowed && vap && !vap.allowed) {
    for (const el of [ui.probes, ui.allocation]) skippedNote(el, 'a ValidatingAdmissionPolicy denies the change: nothing reaches the node');
  }
}

let pending = 0;
let policies = null;
function schedule() {
  clearTimeout(pending);
  pending = setTimeout(update, 120);
}

for (const [id, ex] of Object.entries(EXAMPLES)) {
  const opt = document.createElement('option');
  opt.value = id;
  opt.textContent = ex.title;
  ui.example.append(opt);
}
ui.example.addEventListener('change', () => {
  const ex = EXAMPLES[ui.example.value];
  if (!ex) return;
  setText(ui.old, ex.old);
  setText(ui.new, ex.new);
  ui.sub.value = ex.sub;
  ui.release.value = ex.release ?? '';
  update();
});
for (const el of [ui.old, ui.new, ui.nodeCpu, ui.nodeMemory]) el.addEventListener('input', schedule);
ui.sub.addEventListener('change', update);
ui.profile.addEventListener('change', update);
ui.release.addEventListener('change', update);
ui.validate.addEventListener('change', update);
ui.share.addEventListener('click', async () => {
  const link = location.href.split('#')[0] + shareHash();
  try {
    await navigator.clipboard.writeText(link);
    ui.share.textContent = 'Link copied';
  } catch {
    ui.share.textContent = 'Copy the "share link"';
  }
});
window.addEventListener('hashchange', () => {
  if (location.hash !== shareHash() && loadHash(location.hash)) update();
});

// The editors (CodeMirror when its modules load; the plain textareas otherwise).
const editors = {};
for (const [key, el] of [['old', ui.old], ['new', ui.new]]) {
  editors[key] = await mountEditor(el, key, schedule);
}
policies = await mountPolicies({ podmut, call, parseYaml, mountEditor, onChange: schedule, toBase64Url, fromBase64Url });
/** Set an editor's text (example, share link): the textarea and the editor move together. */
function setText(el, text) {
  el.value = text;
  el.dispatchEvent(new Event('input'));
}

if (!loadHash(location.hash)) {
  const first = Object.keys(EXAMPLES)[0];
  ui.example.value = first;
  setText(ui.old, EXAMPLES[first].old);
  setText(ui.new, EXAMPLES[first].new);
  ui.sub.value = EXAMPLES[first].sub;
  ui.release.value = EXAMPLES[first].release ?? '';
}
update();
document.body.dataset.ready = 'true';
