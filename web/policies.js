// The policies panel: ValidatingAdmissionPolicies and their bindings, pasted or picked from
// KEP-5972's samples, evaluated on the page's old -> new change by the component's
// `policies.evaluate` (the function `podmut vap` and `podmut plan --policy` call), after its
// `policies.typeCheck` (their `--type-check error|warn`: a misspelled Pod field is bad input, or a
// warning beside the evaluation). This file only renders the component's reports and puts a compile
// error or type-checking finding beside its line in the editor.
import { VAP_SAMPLES } from './vap-samples.js';

// The playground's subresource values -> the request's subResource.
const SUBRESOURCE = { none: '', dynamic: 'dynamic', 'ephemeral-containers': 'ephemeralcontainers', resize: 'resize', status: 'status' };

/** `k=v,k=v` -> [[k, v], ...]; throws a sentence naming the bad pair. */
export function parseLabels(text) {
  const pairs = [];
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`namespace labels: "${part}" is not key=value`);
    pairs.push([part.slice(0, eq).trim(), part.slice(eq + 1).trim()]);
  }
  return pairs;
}

// `ValidatingAdmissionPolicy "p": spec.validations[1].expression: compilation error at line 1, column 40: ...`
// (or `type checking error at line 1, column 12: ...`, a type-checking finding as bad input)
const FIELD_ERROR = /^(ValidatingAdmissionPolicy(?:Binding)?) "([^"]*)": ([\w.[\]]+): (?:(?:compilation|type checking) error at line (\d+), column (\d+))?/;

/** The value at a field path like `spec.validations[1].expression` (undefined when absent). */
function valueAt(obj, path) {
  let v = obj;
  for (const key of path.replace(/\[(\d+)\]/g, '.$1').split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = v[key];
  }
  return v;
}

/** The YAML stream's documents with the 1-based line each starts on. */
function documents(text) {
  const lines = text.split('\n');
  const docs = [];
  let start = 0;
  for (let i = 0; i <= lines.length; i++) {
    if (i === lines.length || /^---(\s|$)/.test(lines[i])) {
      docs.push({ first: start + 1, lines: lines.slice(start, i) });
      start = i + 1;
    }
  }
  return docs;
}

/**
 * Where the editor should show a policy error: `{line, column?, message}` (1-based), or null when the
 * field cannot be found in the text. The component names the object, the field and (for CEL) the
 * line and column inside the expression; the YAML is searched for that expression's line.
 */
export function locateError(text, message, parseYaml) {
  const m = FIELD_ERROR.exec(message);
  if (!m) return null;
  const [, kind, name, field, exprLine, exprColumn] = m;
  for (const doc of documents(text)) {
    let obj;
    try {
      obj = parseYaml(doc.lines.join('\n'));
    } catch {
      continue;
    }
    const items = Array.isArray(obj?.items) ? obj.items : Array.isArray(obj) ? obj : [obj];
    const target = items.find((o) => o?.kind === kind && (o?.metadata?.name ?? '') === name);
    if (!target) continue;
    const value = valueAt(target, field);
    const lastKey = field.replace(/\[\d+\]/g, '').split('.').pop();
    // The expression's own line (folded scalars keep each source line as a prefix of the value).
    const raw = typeof value === 'string' ? value.split('\n')[Number(exprLine ?? 1) - 1] ?? value : '';
    const wanted = raw.trim();
    // The column counts from the expression line's own start, indentation included.
    const lead = raw.length - raw.trimStart().length;
    const head = wanted.slice(0, 24);
    let keyLine = -1;
    for (let i = 0; i < doc.lines.length; i++) {
      const line = doc.lines[i];
      const trimmed = line.trim().replace(/^-\s*/, '');
      if (keyLine < 0 && trimmed.startsWith(`${lastKey}:`)) keyLine = i;
      if (head && line.includes(head)) {
        // The column inside the expression, from where its line starts in the text.
        const column = exprColumn ? line.indexOf(head) - lead + Number(exprColumn) : undefined;
        return { line: doc.first + i, column, message };
      }
      if (head && trimmed.length >= 8 && wanted.startsWith(trimmed)) {
        const column = exprColumn && Number(exprColumn) - lead <= trimmed.length ? line.indexOf(trimmed) - lead + Number(exprColumn) : undefined;
        return { line: doc.first + i, column, message };
      }
    }
    if (keyLine >= 0) return { line: doc.first + keyLine, message };
    return { line: doc.first, message };
  }
  return null;
}

function el(tag, text, className) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

/**
 * The panel over the page's elements. `deps`: `{podmut, call, parseYaml, mountEditor, onChange}`.
 * Returns `{render(oldText, newText, sub, admission), share(), load(params)}` — `admission` is the page's verdict
 * (`{allowed}` or null), so the panel can say when the API server's validation denies first;
 * `render` returns the component's report, or null when there is none. `share()` gives the share
 * link's entries (`vap`, `params` as base64url text, `ns` labels, `user`; only the ones set) and
 * `load(URLSearchParams)` restores them.
 */
export async function mountPolicies(deps) {
  const $ = (id) => document.getElementById(id);
  const ui = {
    sample: $('vap-sample'), text: $('vap'), params: $('vap-params'), labels: $('vap-namespace-labels'), user: $('vap-user'),
    typeCheck: $('vap-type-check'), verdict: $('vap-verdict'), typeChecking: $('vap-type-checking'), results: $('vap-results'),
    decisions: $('vap-decisions'), warnings: $('vap-warnings'), annotations: $('vap-annotations'), notes: $('vap-notes'),
  };
  for (const [id, s] of Object.entries(VAP_SAMPLES)) {
    const opt = el('option', s.title);
    opt.value = id;
    ui.sample.append(opt);
  }
  const editor = await deps.mountEditor(ui.text, 'vap', deps.onChange, { wrap: true });
  const paramsEditor = await deps.mountEditor(ui.params, 'vap-params', deps.onChange, { wrap: true });
  const setText = (t, text) => {
    t.value = text;
    t.dispatchEvent(new Event('input'));
  };
  ui.sample.addEventListener('change', () => {
    const s = VAP_SAMPLES[ui.sample.value];
    if (s) setText(ui.text, s.text);
    deps.onChange();
  });
  for (const e of [ui.labels, ui.user]) e.addEventListener('input', deps.onChange);
  ui.typeCheck.addEventListener('change', deps.onChange);

  const clear = () => {
    for (const e of [ui.typeChecking, ui.results, ui.decisions, ui.warnings, ui.annotations, ui.notes]) e.replaceChildren();
    editor?.mark([]);
    paramsEditor?.mark([]);
  };
  /** Show the panel's verdict; returns null (no report) for the early exits. */
  const say = (state, text) => {
    ui.verdict.className = `verdict ${state}`;
    ui.verdict.dataset.state = state;
    ui.verdict.textContent = text;
    return null;
  };

  function renderResults(report) {
    const head = el('tr');
    for (const h of ['policy', 'binding', 'validation', 'outcome', 'action', 'message']) head.append(el('th', h));
    const rows = [head];
    for (const ev of report.evaluations) {
      const base = [ev.policy, ev.binding ?? '—'];
      if (!ev.evaluated || ev.validations.length === 0) {
        const tr = el('tr', undefined, 'not-evaluated');
        tr.dataset.testid = 'vap-evaluation';
        for (const t of [...base, '', ev.evaluated ? 'evaluated' : 'not evaluated', '', ev.detail]) tr.append(el('td', t));
        rows.push(tr);
        continue;
      }
      if (ev.detail) {
        const tr = el('tr', undefined, 'detail');
        for (const t of [...base, '', 'note', '', ev.detail]) tr.append(el('td', t));
        rows.push(tr);
      }
      for (const v of ev.validations) {
        const actions = report.decisions
          .filter((d) => d.policy === ev.policy && d.binding === (ev.binding ?? '') && d.expression === v.expression)
          .map((d) => d.action);
        const tr = el('tr', undefined, `outcome-${v.outcome}`);
        tr.dataset.testid = 'vap-validation';
        tr.dataset.policy = ev.policy;
        tr.dataset.outcome = v.outcome;
        tr.append(el('td', ev.policy), el('td', ev.binding ?? '—'));
        const expr = el('td');
        expr.append(el('span', `[${v.index}] `), el('code', v.expression));
        tr.append(expr, el('td', v.outcome, 'outcome'), el('td', [...new Set(actions)].join(', ') || '—'), el('td', v.message));
        rows.push(tr);
      }
    }
    if (rows.length === 1) {
      const tr = el('tr');
      const td = el('td', 'no policy in the text');
      td.colSpan = 6;
      tr.append(td);
      rows.push(tr);
    }
    ui.results.replaceChildren(...rows);
    for (const d of report.decisions) {
      const item = el('li');
      item.dataset.testid = 'vap-decision';
      item.append(el('strong', d.action), ` ${d.policy}/${d.binding || '—'}: ${d.message}`);
      if (d.reason) item.append(` (reason ${d.reason})`);
      if (d.expression) item.append(' — ', el('code', d.expression));
      ui.decisions.append(item);
    }
    for (const w of report.warnings) ui.warnings.append(el('li', w));
    for (const [k, v] of report.auditAnnotations) {
      const item = el('li');
      item.append(el('code', k), ` = ${v}`);
      ui.annotations.append(item);
    }
    for (const n of report.notes) ui.notes.append(el('li', n));
  }

  /** Mark an input error beside its line: the policy text's (or the params'). */
  function markError(err) {
    const which = err.val?.input === 'params' ? { text: ui.params.value, editor: paramsEditor } : { text: ui.text.value, editor };
    const where = locateError(which.text, err.val?.message ?? '', deps.parseYaml);
    if (where) which.editor?.mark([where]);
    return where;
  }

  /**
   * The type-checking findings of the policies (`policies.typeCheck`), each placed beside its
   * expression: `{findings: [{line, column, message, warning}], err}` — `err` is a call's failure.
   */
  function typeCheck() {
    if (!deps.podmut.policies.typeCheck) return { findings: [] };
    const r = deps.call(() => deps.podmut.policies.typeCheck([ui.text.value]));
    if (r.err) return { err: r };
    const findings = [];
    for (const c of r.ok) {
      for (const w of c.expressionWarnings) {
        const message = w.error?.val?.message ?? w.warning;
        const where = locateError(ui.text.value, message, deps.parseYaml) ?? { line: 1 };
        findings.push({ ...where, message, policy: c.policy, fieldRef: w.fieldRef, warning: w.warning });
      }
    }
    return { findings };
  }

  /** An input error of a call as the verdict, marked beside its line. */
  function sayInputError(r) {
    const where = r.inputError ? markError(r.inputError) : null;
    const input = { 'policy[0]': 'Policies', params: 'Params', 'old-pod': 'Old Pod', 'new-pod': 'New Pod' }[r.inputError?.val?.input];
    const text = input && r.inputError?.val?.message ? `${input}: ${r.inputError.val.message}` : r.err;
    return say('invalid', `cannot evaluate: ${text}${where ? ` (line ${where.line})` : ''}`);
  }

  function render(oldText, newText, sub, admission) {
    clear();
    if (!ui.text.value.trim()) return say('idle', 'no policies: paste ValidatingAdmissionPolicies and bindings, or pick a sample');
    if (!deps.podmut?.policies) return say('invalid', 'policies cannot be evaluated: this component has no policies.evaluate');
    let namespaceLabels;
    try {
      namespaceLabels = ui.labels.value.trim() ? parseLabels(ui.labels.value) : undefined;
    } catch (e) {
      return say('invalid', `cannot evaluate: ${e.message}`);
    }
    const request = {
      policies: [ui.text.value],
      oldObject: oldText.trim() ? oldText : undefined,
      object: newText,
      subresource: SUBRESOURCE[sub] ?? '',
      review: undefined,
      params: ui.params.value.trim() ? ui.params.value : undefined,
      namespaceLabels,
      user: ui.user.value.trim() || undefined,
    };
    // Type-check first, as `podmut vap` does: under `error` (the default) a finding is bad input.
    const checked = typeCheck();
    if (checked.err) return sayInputError(checked.err);
    const { findings } = checked;
    const warn = ui.typeCheck.value === 'warn';
    editor?.mark(findings.map(({ line, column, message }) => ({ line, column, message, warning: warn })));
    if (findings.length && !warn) {
      const f = findings[0];
      const more = findings.length > 1 ? ` (and ${findings.length - 1} more)` : '';
      return say('invalid', `cannot evaluate: Policies: ${f.message} (line ${f.line})${more}`);
    }
    for (const f of findings) {
      const item = el('li');
      item.dataset.testid = 'vap-type-checking';
      item.append(`type checking: policy ${f.policy} ${f.fieldRef} (line ${f.line}): `, el('code', f.warning.trimEnd()));
      ui.typeChecking.append(item);
    }
    const r = deps.call(() => deps.podmut.policies.evaluate(request));
    if (r.err) return sayInputError(r);
    const report = r.ok;
    renderResults(report);
    const first = admission && !admission.allowed
      ? ' (the API server\'s own validation denies this change first: in a cluster these policies would not run)'
      : '';
    if (report.allowed) say('allowed', `allowed by the policies${first}`);
    else say('denied', `denied — ${report.message}${first}`);
    return report;
  }
  const SHARED = { vap: ui.text, params: ui.params };
  const share = () => {
    const out = {};
    for (const [key, t] of Object.entries(SHARED)) if (t.value.trim()) out[key] = deps.toBase64Url(t.value);
    if (ui.labels.value.trim()) out.ns = ui.labels.value.trim();
    if (ui.user.value.trim()) out.user = ui.user.value.trim();
    if (ui.typeCheck.value === 'warn') out.typecheck = 'warn';
    return out;
  };
  const load = (params) => {
    for (const [key, t] of Object.entries(SHARED)) setText(t, params.get(key) ? deps.fromBase64Url(params.get(key)) : '');
    ui.labels.value = params.get('ns') ?? '';
    ui.user.value = params.get('user') ?? '';
    ui.typeCheck.value = params.get('typecheck') === 'warn' ? 'warn' : 'error';
    ui.sample.value = Object.keys(VAP_SAMPLES).find((id) => VAP_SAMPLES[id].text === ui.text.value) ?? '';
  };
  return { render, share, load };
}
