// The Pod editors: CodeMirror 6 (YAML highlighting, line numbers, undo), loaded as plain ES modules
// through the page's import map (no bundler; `cargo xtask web` copies the pinned npm packages into
// pkg/vendor/). The <textarea> of each editor stays the value's home: the editor mirrors into it, and
// when CodeMirror cannot load (no pkg/ yet) the textarea itself is the editor.

/**
 * Mount an editor over `textarea`; `onChange` runs on every edit. Returns `{set(text), focus()}`,
 * or null when CodeMirror is not available (the textarea then stays in use).
 */
export async function mountEditor(textarea, testid, onChange) {
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
  const { EditorState } = cm.state;
  const { EditorView, lineNumbers, keymap, highlightActiveLine, highlightActiveLineGutter } = cm.view;
  const { syntaxHighlighting, defaultHighlightStyle, indentOnInput, bracketMatching } = cm.language;
  const { history, historyKeymap, defaultKeymap, indentWithTab } = cm.commands;
  let syncing = false;
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
  return { set, focus: () => view.focus(), view };
}
