//! `cargo xtask cycles`: no crate of the workspace has an import cycle between its modules.
//!
//! A module's imports are the modules its `use` declarations and paths name through `crate::`,
//! `super::` or `self::`, and the child modules it names (`child::item`). A module may use its
//! ancestors (a child sees its parent's items); every other import must point one way, so the
//! modules of a crate form a directed acyclic graph. Inline `#[cfg(test)]` modules are left out:
//! tests may use anything. Read from the source text (comments removed), because the task runner
//! builds with std alone.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::cmd::{Result, workspace_root};

/// A module, by its path from the crate root (`["pod", "options"]`; the root is empty).
type ModPath = Vec<String>;

/// `cargo xtask cycles`: every workspace crate's `src/`, each cycle printed; an error if any.
pub(crate) fn cycles() -> Result {
    let mut found = Vec::new();
    for src in crate_sources()? {
        let graph = Graph::read(&src)?;
        for cycle in graph.cycles() {
            let names: Vec<String> = cycle.iter().map(display).collect();
            found.push(format!("{}: {}", src.display(), names.join(" -> ")));
        }
    }
    if found.is_empty() {
        println!("xtask: no import cycle in any workspace crate");
        return Ok(());
    }
    Err(format!(
        "import cycles between modules:\n  {}",
        found.join("\n  ")
    ))
}

/// The `src/` directory of every crate in the workspace (and the fuzz workspace).
fn crate_sources() -> Result<Vec<PathBuf>> {
    let root = workspace_root();
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let skip = [
                ".git",
                "target",
                "node_modules",
                "web",
                "policies",
                "docs",
                "cases",
            ];
            if path.is_dir() && !skip.iter().any(|s| name == *s) {
                if path.join("Cargo.toml").is_file() && path.join("src").is_dir() {
                    out.push(path.join("src"));
                }
                stack.push(path);
            }
        }
    }
    if root.join("src").is_dir() {
        out.push(root.join("src"));
    }
    out.sort();
    Ok(out)
}

fn display(m: &ModPath) -> String {
    if m.is_empty() {
        "crate".to_owned()
    } else {
        m.join("::")
    }
}

/// The module files of one crate and the imports between them.
#[derive(Debug, Default)]
struct Graph {
    files: BTreeMap<ModPath, PathBuf>,
    edges: BTreeMap<ModPath, BTreeSet<ModPath>>,
}

impl Graph {
    /// Read the crate rooted at `src/lib.rs` (or `src/main.rs`).
    fn read(src: &Path) -> Result<Self> {
        let mut graph = Graph::default();
        let root = ["lib.rs", "main.rs"]
            .iter()
            .map(|f| src.join(f))
            .find(|p| p.is_file());
        let Some(root) = root else {
            return Ok(graph);
        };
        graph.add(&Vec::new(), &root, src)?;
        let texts: Vec<(ModPath, String)> = graph
            .files
            .iter()
            .map(|(m, f)| {
                std::fs::read_to_string(f)
                    .map(|t| (m.clone(), without_tests(&without_comments(&t))))
                    .map_err(|e| format!("cannot read {}: {e}", f.display()))
            })
            .collect::<Result<_>>()?;
        for (module, text) in texts {
            let targets = graph.imports(&module, &text);
            graph.edges.insert(module, targets);
        }
        Ok(graph)
    }

    /// Record `module` (in `file`, its children under `dir`) and its `mod child;` declarations.
    fn add(&mut self, module: &ModPath, file: &Path, dir: &Path) -> Result {
        let text =
            std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        self.files.insert(module.clone(), file.to_path_buf());
        for child in mod_declarations(&without_comments(&text)) {
            let candidates = [dir.join(format!("{child}.rs")), dir.join(&child).join("mod.rs")];
            if let Some(found) = candidates.iter().find(|p| p.is_file()) {
                let mut path = module.clone();
                path.push(child.clone());
                self.add(&path, found, &dir.join(&child))?;
            }
        }
        Ok(())
    }

    /// The modules `module`'s text imports, its ancestors and itself left out.
    fn imports(&self, module: &ModPath, text: &str) -> BTreeSet<ModPath> {
        let mut out = BTreeSet::new();
        for path in named_paths(text) {
            if let Some(target) = self.resolve(module, &path) {
                out.insert(target);
            }
        }
        for (child, _) in self.files.range(module.clone()..) {
            if child.len() == module.len() + 1 && child.starts_with(module) {
                let name = &child[module.len()];
                if mentions_child(text, name) {
                    out.insert(child.clone());
                }
            }
        }
        out.retain(|t| !module.starts_with(t));
        out
    }

    /// The deepest known module a `crate::`/`super::`/`self::` path names.
    fn resolve(&self, from: &ModPath, path: &[String]) -> Option<ModPath> {
        let (mut base, rest) = match path.first()?.as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "self" => (from.clone(), &path[1..]),
            "super" => {
                let mut base = from.clone();
                let mut i = 0;
                while path.get(i).is_some_and(|s| s == "super") {
                    base.pop();
                    i += 1;
                }
                (base, &path[i..])
            }
            _ => return None,
        };
        for seg in rest {
            let mut next = base.clone();
            next.push(seg.clone());
            if !self.files.contains_key(&next) {
                break;
            }
            base = next;
        }
        Some(base)
    }

    /// The strongly connected components with more than one module, each as a cycle's members.
    fn cycles(&self) -> Vec<Vec<ModPath>> {
        let nodes: Vec<&ModPath> = self.files.keys().collect();
        let index: BTreeMap<&ModPath, usize> = nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
        let adjacency: Vec<Vec<usize>> = nodes
            .iter()
            .map(|m| {
                self.edges
                    .get(*m)
                    .into_iter()
                    .flatten()
                    .filter_map(|t| index.get(t).copied())
                    .collect()
            })
            .collect();
        strongly_connected(&adjacency)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| c.into_iter().map(|i| nodes[i].clone()).collect())
            .collect()
    }
}

/// Tarjan's algorithm, iteratively: the strongly connected components of a graph.
fn strongly_connected(adjacency: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = adjacency.len();
    let (mut index, mut low) = (vec![usize::MAX; n], vec![0; n]);
    let (mut on_stack, mut stack, mut out) = (vec![false; n], Vec::new(), Vec::new());
    let mut counter = 0;
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut work = vec![(start, 0usize)];
        while let Some((v, next)) = work.pop() {
            if next == 0 {
                index[v] = counter;
                low[v] = counter;
                counter += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = adjacency[v].get(next) {
                work.push((v, next + 1));
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(component);
            }
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
        }
    }
    out
}

/// The text without `//` and `/* */` comments (string literals kept as they are).
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                out.extend(chars.next());
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
            }
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// The text before its first inline `#[cfg(test)] mod name {` (tests sit at the end of a file).
fn without_tests(text: &str) -> String {
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]") {
        let start = from + at;
        let rest = text[start + "#[cfg(test)]".len()..].trim_start();
        let rest = rest.strip_prefix("pub(crate) ").unwrap_or(rest);
        if let Some(after) = rest.strip_prefix("mod ") {
            let name_end = after.find(|c: char| !is_ident(c)).unwrap_or(after.len());
            if after[name_end..].trim_start().starts_with('{') {
                return text[..start].to_owned();
            }
        }
        from = start + 1;
    }
    text.to_owned()
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The names of `mod name;` declarations (any visibility).
fn mod_declarations(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let mut words = line.trim().trim_end_matches(';');
            if !line.trim().ends_with(';') {
                return None;
            }
            for vis in ["pub(crate) ", "pub(super) ", "pub "] {
                words = words.strip_prefix(vis).unwrap_or(words);
            }
            let name = words.strip_prefix("mod ")?.trim();
            name.chars().all(is_ident).then(|| name.to_owned())
        })
        .collect()
}

/// Every `crate::`, `super::` or `self::` path the text names, `use` trees expanded.
fn named_paths(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == ':');
        if boundary {
            for head in ["crate", "super", "self"] {
                if starts_with(&bytes, i, head) && starts_with(&bytes, i + head.len(), "::") {
                    let (tree, end) = use_tree(&bytes, i);
                    out.extend(expand(&tree));
                    i = end;
                    break;
                }
            }
        }
        i += 1;
    }
    out
}

fn starts_with(chars: &[char], at: usize, s: &str) -> bool {
    s.chars().enumerate().all(|(k, c)| chars.get(at + k) == Some(&c))
}

/// The path or use tree starting at `at` (`crate::a::{b, c::d}`), each run of whitespace one
/// space, and where it ends.
fn use_tree(chars: &[char], at: usize) -> (String, usize) {
    let (mut out, mut depth, mut i) = (String::new(), 0usize, at);
    while let Some(&c) = chars.get(i) {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            c if depth == 0 && !(is_ident(c) || c == ':') => break,
            _ => {}
        }
        if !c.is_whitespace() {
            out.push(c);
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
        i += 1;
    }
    (out, i)
}

/// A use tree as its paths: `a::{b, c::{d as e}}` is `a::b` and `a::c::d`.
fn expand(tree: &str) -> Vec<Vec<String>> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or(tree);
        let segs: Vec<String> = path
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        return vec![segs];
    };
    let prefix = tree[..open].trim().trim_end_matches("::");
    let body = tree[open + 1..].strip_suffix('}').unwrap_or(&tree[open + 1..]);
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (k, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&body[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&body[start..]);
    let mut out = Vec::new();
    for part in parts.into_iter().map(str::trim).filter(|p| !p.is_empty()) {
        for mut sub in expand(part) {
            if sub.first().is_some_and(|s| s == "self") {
                sub.remove(0);
            }
            let mut path: Vec<String> = prefix.split("::").map(|s| s.trim().to_owned()).collect();
            path.extend(sub);
            out.push(path);
        }
    }
    out
}

/// Whether the text names `child::` as a path of its own (not `x::child::`, not `a_child::`).
fn mentions_child(text: &str, child: &str) -> bool {
    let needle = format!("{child}::");
    text.match_indices(&needle).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        !before.is_some_and(|c| is_ident(c) || c == ':')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_trees_expand_into_paths() {
        let paths = expand("crate::a::{self as x, b, c::{d, e}}");
        let flat: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
        assert_eq!(
            flat,
            ["crate::a", "crate::a::b", "crate::a::c::d", "crate::a::c::e"]
        );
    }

    #[test]
    fn comments_and_test_modules_are_not_imports() {
        let text = "use crate::a; // crate::b\n/* crate::c */ fn f() {}\n#[cfg(test)]\nmod tests {\n use crate::d;\n}\n";
        let cleaned = without_tests(&without_comments(text));
        let flat: Vec<String> = named_paths(&cleaned).iter().map(|p| p.join("::")).collect();
        assert_eq!(flat, ["crate::a"]);
    }

    #[test]
    fn a_cycle_between_siblings_is_found_and_a_parent_is_not_one() {
        let dir = std::env::temp_dir().join(format!("podmut-cycles-{}", std::process::id()));
        let src = dir.join("src");
        std::fs::create_dir_all(src.join("p")).unwrap();
        std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\nmod p;\n").unwrap();
        std::fs::write(src.join("a.rs"), "use crate::b::x;\n").unwrap();
        std::fs::write(src.join("b.rs"), "pub(crate) fn x() { crate::a::y() }\n").unwrap();
        std::fs::write(src.join("p.rs"), "mod q;\nfn f() { q::g() }\n").unwrap();
        std::fs::write(src.join("p/q.rs"), "use super::f;\n").unwrap();
        let graph = Graph::read(&src).unwrap();
        let cycles: Vec<Vec<String>> = graph
            .cycles()
            .iter()
            .map(|c| {
                let mut names: Vec<String> = c.iter().map(display).collect();
                names.sort();
                names
            })
            .collect();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(cycles, [vec!["a".to_owned(), "b".to_owned()]]);
    }
}
