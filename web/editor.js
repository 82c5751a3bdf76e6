// The Pod editors: CodeMirror 6 (YAML highlighting, line numbers, undo), loaded as plain ES modules
// through the page's import map (no bundler; `cargo xtask web` copies the pinned npm packages into
// pkg/vendor/). The <textarea> of each editor stays the value's home: the editor mirrors into it, and
// when CodeMirror cannot load (no pkg/ yet) the textarea itself is the editor.

/**
 * Mount an editor over `textarea`; `onChange` runs on every edit. Returns `{set(text), focus(),
 * view, mark(problems)}`, or null when CodeMirror is not available (the textarea then stays in use).
 * `mark([{line, column?, message, warning?}])` shows each problem beside its line (1-based): the line
 * is highlighted, the character at `column` (1-based, when given) underlined, and the message sits
 * right below the line (in the warning colours when `warning`); `mark([])` clears them. `options.wrap` wraps long lines.
 */
export async function mountEditor(textarea, testid, onChange, options = {}) {
  let cm;
  try {
    const [state, view, language, commands, yaml] = await Promise.all([
      import('@codemirror/state'),
      import('@codemirror/view'),
      import('@codemirror/language'),
      import('@codemirror/commands'),
      import('@codemirror/lang-yaml'),
    ]);
    cm = { state, view, language, commands, yaml };
  } catch {
    return null;
  }
  const { EditorState, StateEffect, StateField } = cm.state;
  const { EditorView, Decoration, WidgetType, lineNumbers, keymap, highlightActiveLine, highlightActiveLineGutter } = cm.view;
  const { syntaxHighlighting, defaultHighlightStyle, indentOnInput, bracketMatching } = cm.language;
  const { history, historyKeymap, defaultKeymap, indentWithTab } = cm.commands;
  let syncing = false;
  const problems = problemMarks({ StateEffect, StateField, EditorView, Decoration, WidgetType });
  const view = new EditorView({
    parent: textarea.parentElement,
    state: EditorState.create({
      doc: textarea.value,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        history(),
        indentOnInput(),
        bracketMatching(),
        cm.yaml.yaml(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        problems.field,
        ...(options.wrap ? [EditorView.lineWrapping] : []),
        EditorView.contentAttributes.of({ 'data-testid': `${testid}-editor`, 'aria-label': textarea.getAttribute('aria-label') ?? testid }),
        EditorView.updateListener.of((u) => {
          if (!u.docChanged || syncing) return;
          textarea.value = u.state.doc.toString();
          onChange();
        }),
      ],
    }),
  });
  textarea.parentElement.insertBefore(view.dom, textarea);
  textarea.hidden = true;
  // Something else wrote the textarea (a share link, an example, a test): follow it.
  const set = (text) => {
    if (view.state.doc.toString() === text) return;
    syncing = true;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    syncing = false;
  };
  textarea.addEventListener('input', () => set(textarea.value));
  const mark = (list) => view.dispatch({ effects: problems.set.of(list) });
  return { set, focus: () => view.focus(), view, mark };
}

/** The problems beside their lines: a state field of line and block-widget decorations. */
function problemMarks({ StateEffect, StateField, EditorView, Decoration, WidgetType }) {
  class Message extends WidgetType {
    constructor(text, kind) {
      super();
      this.text = text;
      this.kind = kind;
    }
    eq(other) {
      return other.text === this.text && other.kind === this.kind;
    }
    toDOM() {
      const div = document.createElement('div');
      div.className = `cm-problem-message${this.kind}`;
      div.dataset.testid = 'editor-problem';
      div.textContent = this.text;
      return div;
    }
  }
  const set = StateEffect.define();
  const build = (doc, list) => {
    const ranges = [];
    for (const { line, column, message, warning } of list) {
      const l = doc.line(Math.min(Math.max(1, line), doc.lines));
      const kind = warning ? ' cm-problem-warning' : '';
      ranges.push(Decoration.line({ class: `cm-problem-line${kind}` }).range(l.from));
      if (column && column <= l.length) {
        ranges.push(Decoration.mark({ class: `cm-problem-at${kind}` }).range(l.from + column - 1, l.from + column));
      }
      ranges.push(Decoration.widget({ widget: new Message(message, kind), block: true, side: 1 }).range(l.to));
    }
    return Decoration.set(ranges, true);
  };
  const field = StateField.define({
    create: () => Decoration.none,
    update(marks, tr) {
      for (const e of tr.effects) if (e.is(set)) return build(tr.state.doc, e.value);
      // An edit makes the old positions stale; the next evaluation marks the text anew.
      return tr.docChanged ? Decoration.none : marks;
    },
    provide: (f) => EditorView.decorations.from(f),
  });
  return { set, field };
}
