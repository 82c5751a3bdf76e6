//! The CLI contract (design.md §4), exercised through the built `podmut` binary.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code: failing loudly is the point"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn podmut() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_podmut"));
    // Keep compiled-component caches inside the test's own target dir.
    c.env(
        "PODMUT_CACHE_DIR",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("podmut-cache"),
    );
    c
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies/examples")
}

fn run(args: &[&str]) -> Output {
    podmut().args(args).output().expect("podmut runs")
}

fn stdout_json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", String::from_utf8_lossy(&o.stdout)))
}

#[test]
fn container_added_on_main_resource_is_denied_with_exit_1() {
    let d = examples().join("02-add-container-main-resource");
    let o = run(&[
        "check",
        "--old",
        d.join("old.yaml").to_str().unwrap(),
        "--new",
        d.join("new.yaml").to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v = stdout_json(&o);
    assert_eq!(v["allowed"], false);
    assert_eq!(v["errors"][0]["type"], "FieldValueForbidden");
    assert_eq!(v["errors"][0]["field"], "spec.containers");
    assert_eq!(v["errors"][0]["origin"], "update/container-list");
    assert!(
        v["errors"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("may not add or remove containers")
    );
    assert!(v["warnings"].is_array());
}

#[test]
fn image_update_is_allowed_with_exit_0() {
    let d = examples().join("01-image-update");
    let o = run(&[
        "check",
        "--old",
        d.join("old.yaml").to_str().unwrap(),
        "--new",
        d.join("new.yaml").to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(stdout_json(&o)["allowed"], true);
}

#[test]
fn text_and_yaml_outputs() {
    let d = examples().join("03-change-command");
    let (old, new) = (d.join("old.yaml"), d.join("new.yaml"));
    let o = run(&[
        "check",
        "--old",
        old.to_str().unwrap(),
        "--new",
        new.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.starts_with(
            "denied: Pod \"web\" is invalid: spec: Forbidden: pod updates may not change fields"
        ),
        "{text}"
    );
    let o = run(&[
        "check",
        "--old",
        old.to_str().unwrap(),
        "--new",
        new.to_str().unwrap(),
        "-o",
        "yaml",
    ]);
    let y: serde_json::Value = serde_yaml_ng::from_slice(&o.stdout).unwrap();
    assert_eq!(y["errors"][0]["field"], "spec");
}

#[test]
fn stdin_is_read_for_dash() {
    use std::io::Write as _;
    let d = examples().join("01-image-update");
    let mut child = podmut()
        .args([
            "check",
            "--old",
            d.join("old.yaml").to_str().unwrap(),
            "--new",
            "-",
            "-o",
            "json",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(d.join("new.yaml")).unwrap())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn bad_input_exits_2_naming_the_file_and_field() {
    let dir = tempdir();
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, "kind: Pod\napiVersion: v1\nspec:\n  containers:\n  - name: a\n    ports: [{containerPort: eighty}]\n").unwrap();
    let o = run(&["check", "--new", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.yaml") && err.contains("spec.containers[0].ports[0].containerPort"),
        "{err}"
    );

    let o = run(&["check", "--new", dir.join("missing.yaml").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.yaml"));

    let o = run(&["check", "--new", bad.to_str().unwrap(), "--subresource", "bogus"]);
    assert_eq!(o.status.code(), Some(2), "usage errors exit 2");

    let o = run(&[
        "check",
        "--new",
        bad.to_str().unwrap(),
        "--feature-gates",
        "NoSuchGate=true",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("NoSuchGate"));
}

#[test]
fn subresource_without_old_pod_is_bad_input() {
    let d = examples().join("01-image-update");
    let o = run(&[
        "check",
        "--new",
        d.join("new.yaml").to_str().unwrap(),
        "--subresource",
        "resize",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("old Pod is required"));
}

#[test]
fn qos_json_and_no_defaults() {
    let dir = tempdir();
    let pod = dir.join("pod.yaml");
    std::fs::write(&pod, "kind: Pod\napiVersion: v1\nspec:\n  containers:\n  - name: a\n    image: x\n    resources: {limits: {cpu: 1, memory: 1Gi}}\n").unwrap();
    let o = run(&["qos", pod.to_str().unwrap(), "-o", "json"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout_json(&o), serde_json::json!({"qosClass": "Guaranteed"}));
    let o = run(&["qos", pod.to_str().unwrap(), "--no-defaults"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "Burstable");
}

#[test]
fn review_echoes_uid_and_denies_with_api_shape() {
    let dir = tempdir();
    let review = dir.join("review.json");
    let pod = |containers: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"web"}},"spec":{{"containers":{containers}}}}}"#
        )
    };
    std::fs::write(
        &review,
        format!(
            r#"{{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{{"uid":"abc","kind":{{"group":"","version":"v1","kind":"Pod"}},"resource":{{"group":"","version":"v1","resource":"pods"}},"operation":"UPDATE","userInfo":{{}},"object":{},"oldObject":{}}}}}"#,
            pod(r#"[{"name":"a","image":"x"},{"name":"b","image":"y"}]"#),
            pod(r#"[{"name":"a","image":"x"}]"#)
        ),
    )
    .unwrap();
    let o = run(&["review", review.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let v = stdout_json(&o);
    assert_eq!(v["response"]["uid"], "abc");
    assert_eq!(v["response"]["status"]["code"], 422);
    assert_eq!(
        v["response"]["status"]["details"]["causes"][0]["field"],
        "spec.containers"
    );
}

#[test]
fn component_writes_the_embedded_bytes() {
    let dir = tempdir();
    let out = dir.join("podmut.wasm");
    let o = run(&["component", "--output", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(bytes, podmut::runtime::EMBEDDED_COMPONENT);
    // The written file runs through --policy and gives the same verdict.
    let d = examples().join("02-add-container-main-resource");
    let o = run(&[
        "check",
        "--policy",
        out.to_str().unwrap(),
        "--old",
        d.join("old.yaml").to_str().unwrap(),
        "--new",
        d.join("new.yaml").to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout_json(&o)["errors"][0]["field"], "spec.containers");
}

#[test]
fn a_non_component_policy_is_a_clear_failure() {
    let dir = tempdir();
    let junk = dir.join("junk.wasm");
    std::fs::write(&junk, b"not wasm").unwrap();
    let d = examples().join("01-image-update");
    let o = run(&[
        "check",
        "--policy",
        junk.to_str().unwrap(),
        "--new",
        d.join("new.yaml").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot compile the component"));
}

#[test]
fn contract_flags_are_present() {
    let help = String::from_utf8(run(&["check", "--help"]).stdout).unwrap();
    for flag in [
        "--old",
        "--new",
        "--subresource",
        "--policy",
        "--feature-gates",
        "--no-defaults",
        "--output",
    ] {
        assert!(help.contains(flag), "check --help lacks {flag}");
    }
    for cmd in [
        "qos",
        "review",
        "component",
        "allocate",
        "probes",
        "statuses",
        "coverage",
        "serve",
        "playground",
    ] {
        assert!(run(&[cmd, "--help"]).status.success(), "{cmd} --help");
    }
}

fn tempdir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "cli-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}
