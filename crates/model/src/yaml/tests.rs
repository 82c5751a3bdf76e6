use serde_json::json;

use super::*;

fn one(text: &str) -> Value {
    let mut docs = read_stream(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(docs.len(), 1, "{text}");
    docs.remove(0).value
}

fn error(text: &str) -> Error {
    read_stream(text).unwrap_err()
}

#[test]
fn values_as_kubectl_sends_them() {
    let v = one(
        "defaultMode: 0644\nprivileged: yes\nrunAsNonRoot: On\nname: 'yes'\nport: \"80\"\nnothing: ~\ncpu: 1e3\nmemory: 1.5e9\nhalf: 0.5\nwhole: 2.0\nwhen: 2001-12-14\ny: n\n",
    );
    assert_eq!(
        v,
        json!({"defaultMode": 420, "privileged": true, "runAsNonRoot": true, "name": "yes",
               "port": "80", "nothing": null, "cpu": 1000, "memory": 1_500_000_000u64, "half": 0.5,
               "whole": 2, "when": "2001-12-14", "true": false})
    );
    assert_eq!(v["whole"].to_string(), "2");
}

#[test]
fn block_scalars_comments_flow_and_crlf() {
    let v = one("# c\na: |\n  x\n  y\nb: >-\n  p\n  q\nc: {d: [1, 'e', f]}\r\n");
    assert_eq!(v, json!({"a": "x\ny\n", "b": "p q", "c": {"d": [1, "e", "f"]}}));
}

#[test]
fn keys_become_strings() {
    let v = one("1: a\n1.5: b\ntrue: c\non: d\n1e6: e\n");
    assert_eq!(v, json!({"1": "a", "1.5": "b", "true": "d", "1e+06": "e"}));
    assert!(error("~: a\n").to_string().contains("null"));
    assert!(error("[a]: b\n").to_string().contains("invalid map key"));
}

#[test]
fn anchors_aliases_and_merges() {
    let v = one(
        "base: &b {image: x, env: [{name: A, value: '1'}]}\nc1:\n  <<: *b\n  name: one\nc2:\n  name: two\n  <<: [*b, {image: y, extra: z}]\n  image: w\nlist: &l [1, 2]\nagain: *l\n",
    );
    assert_eq!(
        v["c1"],
        json!({"image": "x", "env": [{"name": "A", "value": "1"}], "name": "one"})
    );
    // The earlier map of a merge list wins; the key after the merge overrides it.
    assert_eq!(
        v["c2"],
        json!({"image": "w", "env": [{"name": "A", "value": "1"}], "name": "two", "extra": "z"})
    );
    assert_eq!(v["again"], json!([1, 2]));
    // A quoted `<<` is an ordinary key.
    assert_eq!(one("'<<': {a: 1}\n"), json!({"<<": {"a": 1}}));
    assert!(error("a: &x [*x]\n").to_string().contains("contains itself"));
    assert!(error("a: {<<: 1}\n").to_string().contains("map merge requires"));
}

#[test]
fn repeated_keys_keep_the_last_and_are_noted() {
    let docs = read_stream("metadata:\n  labels: {app: a, app: b}\n  <<: {name: m}\n  name: nn\n").unwrap();
    assert_eq!(
        docs[0].value,
        json!({"metadata": {"labels": {"app": "b"}, "name": "nn"}})
    );
    let dups: Vec<String> = docs[0].duplicates.iter().map(Path::document_field).collect();
    assert_eq!(dups, ["metadata.labels.app"]);
}

#[test]
fn streams_skip_empty_documents() {
    let docs = read_stream("---\n# only a comment\n---\nkind: A\n---\n\n---\nnull\n---\nkind: B\n").unwrap();
    let kinds: Vec<(usize, &Value)> = docs.iter().map(|d| (d.index, &d.value["kind"])).collect();
    assert_eq!(kinds, [(2, &json!("A")), (5, &json!("B"))]);
    assert!(read_stream("").unwrap().is_empty());
    assert_eq!(read_stream("\u{feff}a: 1\n").unwrap()[0].value, json!({"a": 1}));
}

#[test]
fn errors_name_document_line_column_and_field() {
    let e = error("kind: A\n---\nkind: B\nspec:\n  mode: !!int abc\n");
    assert_eq!((e.document, e.documents, e.line, e.column), (2, 2, 5, 9));
    assert_eq!(e.field, "spec.mode");
    assert_eq!(
        e.to_string(),
        "line 5 column 9: spec.mode: cannot decode !!str `abc` as a !!int"
    );
    let e = error("a: 1\nb: [unclosed\n");
    assert!(matches!(e.kind, ErrorKind::Syntax(_)), "{e}");
    assert_eq!((e.document, e.documents), (1, 1));
    assert!(e.line >= 2, "{e}");
    let e = error("a: 1\n--- x\n");
    assert_eq!(e.line, 2);
    assert!(
        error("a:\n\tb: 1\n").to_string().starts_with("line 2"),
        "tabs indent nothing"
    );
    let e = error("cpu: .inf\n");
    assert_eq!(e.field, "cpu");
}

#[test]
fn hostile_documents_are_refused() {
    let deep = format!("a: {}1{}", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(error(&deep).kind, ErrorKind::TooDeep);
    let mut laughs = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for (i, name) in ["b", "c", "d", "e", "f", "g", "h", "i"].iter().enumerate() {
        let prev = if i == 0 {
            "a".to_owned()
        } else {
            ["b", "c", "d", "e", "f", "g", "h"][i - 1].to_owned()
        };
        laughs.push_str(&format!("{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
    }
    assert_eq!(error(&laughs).kind, ErrorKind::Aliasing);
    // A few aliases are fine.
    assert_eq!(one("a: &a [1]\nb: [*a, *a]\n")["b"], json!([[1], [1]]));
}
