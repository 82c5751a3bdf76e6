//! Reading inputs, through the built `podmut` binary: field validation (`--validate`), several
//! Pods per file, patches, `admission-review`, `plan`, and the CLI conventions (one error printed
//! once, warnings on stderr, errors that name their input).

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{examples, json_of, output_with_stdin, podmut, run, stderr, stdout};

fn run_stdin(args: &[&str], stdin: &[u8]) -> Output {
    let mut cmd = podmut();
    cmd.args(args);
    output_with_stdin(cmd, stdin)
}

fn json(o: &Output) -> serde_json::Value {
    json_of(o)
}

/// A file in a fresh temporary directory (kept alive by the returned guard).
fn file(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = crate::support::tempdir();
    let path = crate::support::write(dir.path(), name, text);
    (dir, path)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const BURSTABLE_TYPO: &str = "apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  containers:
  - name: app
    image: nginx:1.25
    resource:
      limits: {cpu: 500m, memory: 256Mi}
";

#[test]
fn a_misspelled_field_fails_strict_validation_like_kubectl() {
    let (_d, pod) = file("typo.yaml", BURSTABLE_TYPO);
    let o = run(&["qos", s(&pod)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(r#"typo.yaml: strict decoding error: unknown field "spec.containers[0].resource""#),
        "{err}"
    );
    assert_eq!(
        err.matches("strict decoding error").count(),
        1,
        "printed once: {err}"
    );
    // Without validation the typo silently makes the Pod BestEffort.
    let o = run(&["qos", s(&pod), "--validate", "ignore"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o).trim(), "BestEffort");
    let o = run(&["check", "--new", s(&pod), "--validate", "warn", "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert!(
        v["warnings"][0]
            .as_str()
            .unwrap()
            .ends_with(r#"unknown field "spec.containers[0].resource""#),
        "{v}"
    );
    let o = run(&["check", "--new", s(&pod), "--validate", "warn"]);
    assert_eq!(stdout(&o), "allowed\n");
    assert!(stderr(&o).starts_with("Warning: "), "{}", stderr(&o));
}

#[test]
fn duplicate_fields_and_every_reading_command_validates() {
    let (_d, dup) = file(
        "dup.json",
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","name":"web"},"spec":{"containers":[{"name":"a","image":"x"}]}}"#,
    );
    for args in [
        vec!["check", "--new", s(&dup)],
        vec!["qos", s(&dup)],
        vec!["admission-review", "--new", s(&dup)],
        vec!["probes", "--old", s(&dup), "--new", s(&dup)],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(r#"duplicate field "metadata.name""#),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    let (_n, node) = file(
        "node.yaml",
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '4', memory: 8Gi}, capacty: {}}\n",
    );
    let (_p, pod) = file(
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: x}]}\n",
    );
    let o = run(&[
        "allocate",
        "--node",
        s(&node),
        "--allocated",
        s(&pod),
        "--desired",
        s(&pod),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(r#"node.yaml: strict decoding error: unknown field "status.capacty""#),
        "{}",
        stderr(&o)
    );
    let review = r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"subresource":"dynamic","operation":"UPDATE","userInfo":{},"object":{"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"x"}]}},"oldObject":{"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"x"}]}}}}"#;
    let o = run_stdin(&["review", "-"], review.as_bytes());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(r#"unknown field "request.subresource""#),
        "{}",
        stderr(&o)
    );
    let o = run_stdin(&["review", "-", "--validate", "ignore"], review.as_bytes());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

const TWO_PODS: &str = "apiVersion: v1
kind: Pod
metadata: {name: a, namespace: x}
spec: {containers: [{name: app, image: nginx:1.25}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: x}
spec: {containers: [{name: app, image: nginx:1.25}]}
";

#[test]
fn several_pods_in_one_file() {
    let (_d, pods) = file("pods.yaml", TWO_PODS);
    let o = run(&["check", "--new", s(&pods), "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["pod"], "x/a");
    assert_eq!(items[1]["name"], "b");
    assert_eq!(items[1]["allowed"], true);
    // Pairs by namespace/name: b's image changes (allowed), a gains a container (denied), and a
    // Pod only in the old file is reported.
    let old = format!(
        "{TWO_PODS}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: c, namespace: x}}\nspec: {{containers: [{{name: app, image: i}}]}}\n"
    );
    let new = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: b, namespace: x}\n  spec: {containers: [{name: app, image: nginx:1.27}]}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a, namespace: x}\n  spec: {containers: [{name: app, image: nginx:1.25}, {name: two, image: busybox}]}\n";
    let (_o, oldf) = file("old.yaml", &old);
    let (_n, newf) = file("new.yaml", new);
    let o = run(&["check", "--old", s(&oldf), "--new", s(&newf), "-o", "json"]);
    let v = json(&o);
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 3, "{v}");
    assert_eq!(items[0]["pod"], "x/b");
    assert_eq!(items[0]["allowed"], true);
    assert_eq!(items[1]["pod"], "x/a");
    assert_eq!(items[1]["errors"][0]["origin"], "update/container-list");
    assert_eq!(items[2]["pod"], "x/c");
    assert!(items[2]["error"].as_str().unwrap().contains("no new Pod"), "{v}");
    assert_eq!(o.status.code(), Some(2), "the worst: an unpaired Pod");
    let o = run(&["check", "--old", s(&oldf), "--new", s(&newf)]);
    let text = stdout(&o);
    assert!(text.contains("pod x/b: allowed"), "{text}");
    assert!(text.contains("pod x/a: denied: "), "{text}");
    // qos over a List, each item naming its Pod.
    let o = run(&["qos", s(&newf), "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(&o)["items"][1]["pod"], "x/a");
    assert_eq!(json(&o)["items"][1]["qosClass"], "BestEffort");
}

#[test]
fn patches_of_each_type_on_every_path() {
    let d = examples().join("04-warm-pool-add-worker");
    let old = d.join("old.yaml");
    let add = r#"{"spec":{"containers":[{"name":"tool-1","image":"sandbox:2.1","resources":{"requests":{"cpu":"250m","memory":"128Mi"},"limits":{"memory":"128Mi"}}}]}}"#;
    let o = run(&[
        "check",
        "--old",
        s(&old),
        "--patch",
        add,
        "--subresource",
        "dynamic",
        "--show-new",
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["allowed"], true);
    let names: Vec<&str> = v["newPod"]["spec"]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["tool-1", "agent"]);
    let o = run(&["check", "--old", s(&old), "--patch", add]);
    assert_eq!(o.status.code(), Some(1));
    let (_p, patch) = file(
        "p.json",
        r#"[{"op":"replace","path":"/spec/containers/0/image","value":"agent:1.1"}]"#,
    );
    let o = run(&[
        "check",
        "--old",
        s(&old),
        "--patch-file",
        s(&patch),
        "--type",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&[
        "check",
        "--old",
        s(&old),
        "--patch",
        "spec: {containers: [{name: agent, image: agent:1.1}]}",
        "--type",
        "merge",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a merge patch replaces the list: {}",
        stdout(&o)
    );
    let o = run(&[
        "check",
        "--old",
        s(&old),
        "--patch",
        r#"{"spec":{"containers":[{"image":"x"}]}}"#,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o).trim(),
        "podmut: --patch: map: map[image:x] does not contain declared merge key: name"
    );
    let o = run(&[
        "check",
        "--old",
        s(&old),
        "--patch",
        r#"{"spec":{"containers":[{"name":"agent","resourcez":{}}]}}"#,
    ]);
    assert_eq!(o.status.code(), Some(2), "fields a patch adds are validated");
    assert!(
        stderr(&o)
            .contains(r#"--patch: strict decoding error: unknown field "spec.containers[0].resourcez""#),
        "{}",
        stderr(&o)
    );
    let o = run(&["check", "--old", s(&old), "--patch", "{}", "--show-new"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("# the patched Pod:\napiVersion: v1"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn admission_review_starts_every_review() {
    for entry in std::fs::read_dir(examples()).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(sub) = std::fs::read_to_string(dir.join("subresource")) else {
            continue;
        };
        let name = dir.file_name().unwrap().to_str().unwrap().to_owned();
        let uid = format!("podmut-example-{name}");
        let (old, new) = (dir.join("old.yaml"), dir.join("new.yaml"));
        let o = run(&[
            "admission-review",
            "--old",
            s(&old),
            "--new",
            s(&new),
            "--subresource",
            sub.trim(),
            "--uid",
            &uid,
        ]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let committed = std::fs::read_to_string(dir.join("review.json")).unwrap_or_default();
        assert_eq!(
            stdout(&o),
            committed,
            "policies/examples/{name}/review.json is stale: regenerate it with\n  podmut admission-review --old {0}/old.yaml --new {0}/new.yaml --subresource {1} --uid {uid} > {0}/review.json",
            dir.display(),
            sub.trim()
        );
        // The review is judged exactly like the pair.
        let check = run(&[
            "check",
            "--old",
            s(&old),
            "--new",
            s(&new),
            "--subresource",
            sub.trim(),
        ]);
        let review = run(&["review", s(&dir.join("review.json"))]);
        assert_eq!(review.status.code(), check.status.code(), "{name}");
        assert_eq!(json(&review)["response"]["uid"], uid.as_str());
    }
    let pod = examples().join("01-image-update/new.yaml");
    let a = json(&run(&[
        "admission-review",
        "--new",
        s(&pod),
        "--dry-run",
        "--user",
        "alice",
    ]));
    let b = json(&run(&["admission-review", "--new", s(&pod)]));
    assert_ne!(a["request"]["uid"], b["request"]["uid"], "a fresh uid each time");
    assert_eq!(a["request"]["operation"], "CREATE");
    assert_eq!(a["request"]["dryRun"], true);
    assert_eq!(a["request"]["userInfo"]["username"], "alice");
    let o = run(&["admission-review", "--new", s(&pod), "--operation", "update"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o).trim(),
        "podmut: --old: an UPDATE request needs the old Pod"
    );
}

#[test]
fn plan_reports_the_change_end_to_end() {
    let d = examples().join("04-warm-pool-add-worker");
    let node = examples().join("node/node.yaml");
    let args = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = [
            "plan",
            "--old",
            s(&d.join("old.yaml")),
            "--new",
            s(&d.join("new.yaml")),
            "--subresource",
            "dynamic",
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        v.extend(extra.iter().map(ToString::to_string));
        v
    };
    let o = podmut()
        .args(args(&["--node", s(&node), "-o", "json"]))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    for key in ["admission", "qos", "allocation", "probes", "statuses"] {
        assert!(v.get(key).is_some(), "{key}: {v}");
    }
    assert_eq!(v["admission"]["allowed"], true);
    assert_eq!(v["allocation"]["outcome"], "Allocated");
    let o = podmut().args(args(&[])).output().unwrap();
    let text = stdout(&o);
    assert!(text.contains("allocation: (not planned) no node given"), "{text}");
    assert!(text.contains("Plan: the API server admits the change"), "{text}");
    let o = podmut()
        .args([
            "plan",
            "--old",
            s(&d.join("old.yaml")),
            "--new",
            s(&d.join("new.yaml")),
            "--node",
            s(&node),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "denied on the main resource");
    assert!(
        stdout(&o).contains("Plan: the API server denies the change (1 error)."),
        "{}",
        stdout(&o)
    );
}

#[test]
fn conventions() {
    // One error, printed once, with its rule id.
    let d = examples().join("02-add-container-main-resource");
    let o = run(&[
        "check",
        "--old",
        s(&d.join("old.yaml")),
        "--new",
        s(&d.join("new.yaml")),
    ]);
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert_eq!(
        text.matches("may not add or remove containers").count(),
        1,
        "{text}"
    );
    assert!(text.trim_end().ends_with("[update/container-list]"), "{text}");
    // Every input error names its input, never `podmut: : ...`.
    let new = examples().join("01-image-update/new.yaml");
    let o = run(&["check", "--new", s(&new), "--subresource", "resize"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("podmut: --old: "), "{}", stderr(&o));
    assert!(!stderr(&o).contains("podmut: : "));
    // A --policy file that is not a component says so and names the file.
    let (_p, bogus) = file("bogus.wasm", "not wasm");
    let o = run(&["check", "--new", s(&new), "--policy", s(&bogus)]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("bogus.wasm: not a WebAssembly component"),
        "{}",
        stderr(&o)
    );
    // Durations and sizes in Go and Kubernetes syntax (parsed before serve asks for a certificate).
    let o = run(&[
        "serve",
        "--deadline",
        "1m30s",
        "--max-body",
        "3M",
        "--memory-limit",
        "1.5Gi",
        "--drain-timeout",
        "1h",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("serve needs a certificate"), "{}", stderr(&o));
    let o = run(&["serve", "--deadline", "1d"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("1d"), "{}", stderr(&o));
    // A Pod without spec reports, after defaulting, what the API server reports.
    let (_s, nospec) = file(
        "nospec.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: bare}\n",
    );
    let o = run(&["check", "--new", s(&nospec), "-o", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(
        v["message"], r#"Pod "bare" is invalid: spec.containers: Required value"#,
        "{v}"
    );
    // No colour codes when stderr is a pipe.
    let o = run(&["check", "--bogus-flag"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!stderr(&o).contains('\u{1b}'), "{}", stderr(&o));
}
