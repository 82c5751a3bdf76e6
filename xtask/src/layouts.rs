//! `cargo xtask oracle layouts [--check]`: the Go layout of the API server's internal Pod types,
//! as `podmut-core` renders bad values with it (`crates/model/src/gojson/layout.rs`).
//!
//! The API server prints a struct-valued bad value of a field error as `json.Marshal` of the
//! internal Go type (apimachinery `field.Error.ErrorBody`): Go field names, every field, in
//! declaration order. `tests/oracle/layout/main.go` reflects over `k8s.io/kubernetes/pkg/apis/core`
//! and prints that layout; it is built once per pinned Kubernetes release (a module that requires
//! that release, like the oracle's kube-apiserver), and the outputs are merged into one Rust table
//! in which each field carries the set of releases that have it. `--check` compares instead of
//! writing, and fails when the committed table is stale.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

use crate::cmd::{Result, ensure_dir, stdout_of, step, workspace_root, write};
use crate::go_module::{Pin, apiserver_go_mod, cache_dir, go, pins, tidy};

/// The generated table.
fn table_file() -> PathBuf {
    workspace_root().join("crates/model/src/gojson/layout.rs")
}

/// One field record of a struct, as the Go program prints it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Field {
    key: String,
    ext: Option<String>,
    omit_empty: bool,
    ty: String,
}

/// One release's layout: its struct records by id.
#[derive(Debug, Default)]
struct Layout {
    structs: BTreeMap<String, Vec<Field>>,
}

/// `cargo xtask oracle layouts [--check]`.
pub(crate) fn layouts(args: &[String]) -> Result {
    let check = args.iter().any(|a| a == "--check");
    let mut releases = Vec::new();
    for pin in pins()? {
        if let Pin::Kubernetes(minor, patch) = pin {
            let v = format!("1.{minor}.{patch}");
            let text = step(&format!("layout of Kubernetes v{v}"), || run_layout(minor, patch))?;
            releases.push((v, parse(&text)?));
        }
    }
    let source = render(&releases)?;
    let path = table_file();
    if check {
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current != source {
            return Err(format!(
                "{} is not what `cargo xtask oracle layouts` generates for the pinned releases: regenerate it",
                path.display()
            ));
        }
        eprintln!("{} is up to date", path.display());
        return Ok(());
    }
    write(&path, source)
}

/// Build and run the layout program against Kubernetes `1.<minor>.<patch>`.
fn run_layout(minor: u32, patch: u32) -> Result<String> {
    let program = workspace_root().join("tests/oracle/layout/main.go");
    let dir = cache_dir().join("src").join(format!("layout-v1.{minor}.{patch}"));
    ensure_dir(&dir)?;
    let main = std::fs::read(&program).map_err(|e| format!("cannot read {}: {e}", program.display()))?;
    write(&dir.join("main.go"), main)?;
    let go_mod = apiserver_go_mod("podmut.local/oracle/layout", minor, patch, "")?;
    write(&dir.join("go.mod"), go_mod)?;
    tidy(&dir)?;
    let mut c = go(&dir);
    c.args(["run", ".", &format!("1.{minor}.{patch}")]);
    stdout_of(c)
}

/// Read the program's output (records documented in main.go).
fn parse(text: &str) -> Result<Layout> {
    let mut layout = Layout::default();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        match cols.as_slice() {
            ["release", _] | ["root", _] => {}
            ["struct", id] => {
                layout.structs.insert((*id).to_owned(), Vec::new());
                current = Some((*id).to_owned());
            }
            ["field", key, ext, omit, ty] => {
                let id = current.as_ref().ok_or("a field before any struct")?;
                let fields = layout.structs.get_mut(id).ok_or("a field of an unknown struct")?;
                fields.push(Field {
                    key: (*key).to_owned(),
                    ext: (*ext != "-").then(|| (*ext).to_owned()),
                    omit_empty: *omit == "1",
                    ty: (*ty).to_owned(),
                });
            }
            _ => return Err(format!("the layout program printed an unknown line {line:?}")),
        }
    }
    Ok(layout)
}

/// Merge one more release's field list into `merged` (fields with a release mask), keeping the
/// order of both (their longest common subsequence is shared). Between two shared fields, the
/// newer release's own fields come before the older releases' (any order renders each release
/// the same: a field is rendered only for the releases in its mask).
fn merge(merged: &mut Vec<(Field, u8)>, next: &[Field], bit: u8) {
    let (n, m) = (merged.len(), next.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if merged[i].0 == next[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(n + m);
    while i < n || j < m {
        if i < n && j < m && merged[i].0 == next[j] {
            out.push((merged[i].0.clone(), merged[i].1 | bit));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push((next[j].clone(), bit));
            j += 1;
        } else {
            out.push(merged[i].clone());
            i += 1;
        }
    }
    *merged = out;
}

/// `SecurityContext` → `SECURITY_CONTEXT`, `HTTPGetAction` → `HTTP_GET_ACTION`, `PodIP` → `POD_IP`.
fn screaming(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1);
        if c.is_ascii_uppercase()
            && let Some(p) = prev
            && (p.is_ascii_lowercase()
                || p.is_ascii_digit()
                || (p.is_ascii_uppercase() && next.is_some_and(char::is_ascii_lowercase)))
        {
            out.push('_');
        }
        if *c == '.' {
            out.push('_');
        } else {
            out.push(c.to_ascii_uppercase());
        }
    }
    out
}

/// The Rust name of a type description (`ptr:struct:core.PodIP` → `PTR_STRUCT_CORE_POD_IP`).
fn ty_name(ty: &str) -> String {
    ty.split(':').map(screaming).collect::<Vec<_>>().join("_")
}

/// The Rust expression of a type description, naming the statics of its parts.
fn ty_expr(ty: &str) -> Result<String> {
    let (head, rest) = ty.split_once(':').unwrap_or((ty, ""));
    Ok(match head {
        "string" => "Ty::String".into(),
        "bool" => "Ty::Bool".into(),
        "int" | "uint" => "Ty::Int".into(),
        "quantity" => "Ty::Quantity".into(),
        "time" | "microtime" => "Ty::Time".into(),
        "intorstring" => "Ty::IntOrString".into(),
        "raw" => "Ty::Raw".into(),
        "ptr" => format!("Ty::Ptr(&{})", ty_name(rest)),
        "slice" => format!("Ty::Slice(&{})", ty_name(rest)),
        "map" => format!("Ty::Map(&{})", ty_name(rest)),
        "struct" => format!("Ty::Struct(&{})", screaming(rest)),
        // float, bytes, duration: no Pod type has them yet; add a `Ty` when one does.
        other => return Err(format!("no `Ty` for the type description {other:?} in {ty:?}")),
    })
}

/// Every type description `ty` mentions, itself included.
fn collect_types(ty: &str, out: &mut BTreeSet<String>) {
    out.insert(ty.to_owned());
    if let Some((head, rest)) = ty.split_once(':')
        && head != "struct"
    {
        collect_types(rest, out);
    }
}

/// The Rust source of the merged table.
fn render(releases: &[(String, Layout)]) -> Result<String> {
    if releases.len() > 8 {
        return Err("more than 8 pinned releases: widen the release mask".into());
    }
    let mut structs: BTreeMap<String, Vec<(Field, u8)>> = BTreeMap::new();
    for (i, (_, layout)) in releases.iter().enumerate() {
        let bit = 1u8 << i;
        for (id, fields) in &layout.structs {
            merge(structs.entry(id.clone()).or_default(), fields, bit);
        }
    }
    let mut types = BTreeSet::new();
    for fields in structs.values() {
        for (f, _) in fields {
            collect_types(&f.ty, &mut types);
        }
    }
    for id in structs.keys() {
        types.insert(format!("struct:{id}"));
    }
    let names: BTreeSet<String> = types.iter().map(|t| ty_name(t)).collect();
    if names.len() != types.len() {
        return Err("two type descriptions get the same Rust name".into());
    }
    let release_list: Vec<String> = releases.iter().map(|(r, _)| format!("{r:?}")).collect();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "//! How Go's `encoding/json` prints the API server's internal Pod types (generated by\n\
         //! `cargo xtask oracle layouts` from `tests/oracle/layout/main.go`, which reflects over\n\
         //! `k8s.io/kubernetes/pkg/apis/core` of each pinned release; do not edit).\n\
         //!\n\
         //! A struct lists its fields in encoding order: the key Go prints, the json key of the same\n\
         //! field in the external `v1` type (where podmut's value comes from; `None`: the external type\n\
         //! has no such field and the Go zero value is printed), `omitempty`, the releases that have the\n\
         //! field (bit `i` is [`RELEASES`]`[i]`) and its type. `STRUCT_<ID>` is the [`Ty`] of struct `<ID>`.\n\n\
         use super::{{Field, Struct, Ty}};\n\n\
         /// The releases a field's mask refers to, bit 0 first.\n\
         pub(crate) const RELEASES: [&str; {}] = [{}];",
        releases.len(),
        release_list.join(", ")
    );
    for ty in &types {
        let name = ty_name(ty);
        if let Some(id) = ty.strip_prefix("struct:") {
            let fields = structs.get(id).ok_or_else(|| format!("no layout for {id}"))?;
            let _ = writeln!(
                s,
                "\n/// `{id}`.\npub(crate) static {}: Struct = Struct {{\n    fields: &[",
                screaming(id)
            );
            for (f, mask) in fields {
                let ext = f
                    .ext
                    .as_ref()
                    .map_or("None".to_owned(), |e| format!("Some({e:?})"));
                let _ = writeln!(
                    s,
                    "        Field {{ key: {:?}, ext: {ext}, omit_empty: {}, releases: {mask:#05b}, ty: &{} }},",
                    f.key,
                    f.omit_empty,
                    ty_name(&f.ty)
                );
            }
            let _ = writeln!(s, "    ],\n}};");
        }
        {
            let _ = writeln!(
                s,
                "\n/// `{ty}`.\npub(crate) static {name}: Ty = {};",
                ty_expr(ty)?
            );
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(key: &str) -> Field {
        Field {
            key: key.into(),
            ext: None,
            omit_empty: false,
            ty: "string".into(),
        }
    }

    #[test]
    fn names_are_screaming_snake_case() {
        assert_eq!(screaming("SecurityContext"), "SECURITY_CONTEXT");
        assert_eq!(screaming("HTTPGetAction"), "HTTP_GET_ACTION");
        assert_eq!(screaming("core.PodIP"), "CORE_POD_IP");
        assert_eq!(ty_name("ptr:struct:core.PodIP"), "PTR_STRUCT_CORE_POD_IP");
    }

    #[test]
    fn releases_merge_in_order() {
        let mut merged = vec![(f("a"), 1), (f("b"), 1), (f("c"), 1)];
        merge(&mut merged, &[f("a"), f("x"), f("c")], 2);
        let got: Vec<(String, u8)> = merged.into_iter().map(|(f, m)| (f.key, m)).collect();
        assert_eq!(
            got,
            [("a".into(), 3), ("x".into(), 2), ("b".into(), 1), ("c".into(), 3)]
        );
    }
}
