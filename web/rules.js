// The rule-origin table, from the component's `report.rules` (the same call `podmut rules` and
// `podmut explain` make): one row per origin, the one named in the hash (`rules.html#ORIGIN`, where
// the playground's error links point) shown on top as `podmut explain` prints it.

const $ = (id) => document.getElementById(id);
const body = document.querySelector('[data-testid=rules] tbody');

function cell(tr, text, code = false) {
  const td = document.createElement('td');
  if (code) {
    const c = document.createElement('code');
    c.textContent = text;
    td.append(c);
  } else {
    td.textContent = text;
  }
  tr.append(td);
}

function render(table) {
  $('build').textContent = `${table.rules.length} rules; sources refer to ${table.upstream}`;
  for (const r of table.rules) {
    const tr = document.createElement('tr');
    tr.id = r.origin;
    tr.dataset.testid = 'rule';
    cell(tr, r.origin, true);
    cell(tr, r.paths.join(', '));
    cell(tr, r.source, true);
    cell(tr, String(r.fixtures));
    cell(tr, r.text);
    body.append(tr);
  }
}

/** The entry of the origin in the hash, as `podmut explain` prints it; unknown ones say so. */
function explain(table) {
  const entry = $('entry');
  const origin = decodeURIComponent(location.hash.replace(/^#/, ''));
  for (const tr of body.querySelectorAll('tr.selected')) tr.classList.remove('selected');
  if (!origin) {
    entry.hidden = true;
    return;
  }
  entry.hidden = false;
  entry.replaceChildren();
  const r = table.rules.find((x) => x.origin === origin);
  const h = document.createElement('h2');
  h.textContent = `podmut explain ${origin}`;
  entry.append(h);
  if (!r) {
    const p = document.createElement('p');
    p.className = 'na';
    p.textContent = `unknown rule origin "${origin}" (the table below lists every origin)`;
    entry.append(p);
    return;
  }
  const dl = document.createElement('dl');
  for (const [k, v] of [['request paths', r.paths.join(', ')], ['source', r.source], ['upstream', table.upstream],
    ['fixtures', String(r.fixtures)], ['description', r.text]]) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.dataset.testid = `explain-${k.replace(' ', '-')}`;
    dd.textContent = v;
    dl.append(dt, dd);
  }
  entry.append(dl);
  const row = document.getElementById(origin);
  row?.classList.add('selected');
}

try {
  const podmut = await import('./pkg/podmut.js');
  const table = podmut.report.rules();
  render(table);
  explain(table);
  addEventListener('hashchange', () => explain(table));
} catch (e) {
  $('build').textContent =
    'No component in this page: build it with `cargo xtask web` (needs Node.js and npm), then rebuild podmut. ' +
    `(${String(e?.message ?? e)})`;
}
document.body.dataset.ready = 'true';
