//! The CLI contract (docs/cli.md: flags, `-o json` shapes, exit codes), exercised through the built
//! `podmut` binary.

use std::process::Output;

use crate::support::{
    examples, expect_bad_input, json_of as stdout_json, output_with_stdin, pod, podmut, policies, review,
    run, stderr, tempdir, write,
};

/// `podmut check --old <example>/old.yaml --new <example>/new.yaml ARGS`.
fn check_example(example: &str, args: &[&str]) -> Output {
    let d = examples().join(example);
    let (old, new) = (d.join("old.yaml"), d.join("new.yaml"));
    let mut all = vec![
        "check",
        "--old",
        old.to_str().unwrap(),
        "--new",
        new.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    run(&all)
}

#[test]
fn container_added_on_main_resource_is_denied_with_exit_1() {
    let o = check_example("02-add-container-main-resource", &["-o", "json"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
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
    let o = check_example("01-image-update", &["-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(stdout_json(&o)["allowed"], true);
}

#[test]
fn text_and_yaml_outputs() {
    let o = check_example("03-change-command", &[]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.starts_with(
            "denied: Pod \"web\" is invalid: spec: Forbidden: pod updates may not change fields"
        ),
        "{text}"
    );
    let o = check_example("03-change-command", &["-o", "yaml"]);
    let y: serde_json::Value = serde_yaml_ng::from_slice(&o.stdout).unwrap();
    assert_eq!(y["errors"][0]["field"], "spec");
}

#[test]
fn stdin_is_read_for_dash() {
    let d = examples().join("01-image-update");
    let mut cmd = podmut();
    cmd.args([
        "check",
        "--old",
        d.join("old.yaml").to_str().unwrap(),
        "--new",
        "-",
        "-o",
        "json",
    ]);
    let o = output_with_stdin(cmd, &std::fs::read(d.join("new.yaml")).unwrap());
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
}

#[test]
fn bad_input_exits_2_naming_the_file_and_field() {
    let tmp = tempdir();
    let dir = tmp.path();
    let bad = write(
        dir,
        "bad.yaml",
        "kind: Pod\napiVersion: v1\nspec:\n  containers:\n  - name: a\n    ports: [{containerPort: eighty}]\n",
    );
    let o = run(&["check", "--new", bad.to_str().unwrap()]);
    expect_bad_input(&o, "bad.yaml");
    expect_bad_input(&o, "spec.containers[0].ports[0].containerPort");

    let o = run(&["check", "--new", dir.join("missing.yaml").to_str().unwrap()]);
    expect_bad_input(&o, "missing.yaml");

    let o = run(&["check", "--new", bad.to_str().unwrap(), "--subresource", "bogus"]);
    assert_eq!(o.status.code(), Some(2), "usage errors exit 2");

    let o = run(&[
        "check",
        "--new",
        bad.to_str().unwrap(),
        "--feature-gates",
        "NoSuchGate=true",
    ]);
    expect_bad_input(&o, "NoSuchGate");
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
    expect_bad_input(&o, "old Pod is required");
}

#[test]
fn qos_json_and_no_defaults() {
    let tmp = tempdir();
    let dir = tmp.path();
    let pod = write(
        dir,
        "pod.yaml",
        "kind: Pod\napiVersion: v1\nspec:\n  containers:\n  - name: a\n    image: x\n    resources: {limits: {cpu: 1, memory: 1Gi}}\n",
    );
    let o = run(&["qos", pod.to_str().unwrap(), "-o", "json"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout_json(&o), serde_json::json!({"qosClass": "Guaranteed"}));
    let o = run(&["qos", pod.to_str().unwrap(), "--no-defaults"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "Burstable");
}

#[test]
fn review_echoes_uid_and_denies_with_api_shape() {
    let tmp = tempdir();
    let dir = tmp.path();
    let doc = review(
        "abc",
        "",
        &pod("web", &[("a", "x")]),
        &pod("web", &[("a", "x"), ("b", "y")]),
    );
    let review = write(dir, "review.json", &doc.to_string());
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
    let tmp = tempdir();
    let dir = tmp.path();
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
    let tmp = tempdir();
    let dir = tmp.path();
    let junk = write(dir, "junk.wasm", "not wasm");
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

// ------------------------------------------------------------------------------------------
// The strict profile, Kubernetes versions, enforcement, through the CLI

/// The warm-pool example with a worker that asks for a capability no existing container adds.
fn escalating_worker(dir: &std::path::Path) -> std::path::PathBuf {
    let new = std::fs::read_to_string(examples().join("04-warm-pool-add-worker/new.yaml")).unwrap();
    let escalated = new.replace(
        "    command: [/bin/run-tool, --task, \"42\"]\n",
        "    command: [/bin/run-tool, --task, \"42\"]\n    securityContext: {capabilities: {add: [NET_ADMIN]}}\n",
    );
    assert_ne!(new, escalated, "the example changed: update this test");
    write(dir, "escalating.yaml", &escalated)
}

#[test]
fn the_strict_profile_refuses_what_the_default_profile_allows() {
    let dir = tempdir();
    let old = examples().join("04-warm-pool-add-worker/old.yaml");
    let new = escalating_worker(dir.path());
    let strict = policies().join("strict.yaml");
    let check = |extra: &[&str]| {
        let mut a = vec![
            "check",
            "--old",
            old.to_str().unwrap(),
            "--new",
            new.to_str().unwrap(),
            "--subresource",
            "dynamic",
            "-o",
            "json",
        ];
        a.extend_from_slice(extra);
        run(&a)
    };
    let o = check(&[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "KEP-5972's own rules allow it: {}",
        stderr(&o)
    );
    let o = check(&["--settings", strict.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = stdout_json(&o);
    assert_eq!(v["errors"].as_array().unwrap().len(), 1, "{v}");
    let e = &v["errors"][0];
    assert_eq!(e["type"], "FieldValueForbidden");
    assert_eq!(
        e["field"],
        "spec.containers[1].securityContext.capabilities.add[0]"
    );
    assert_eq!(e["origin"], "strict/capabilities-add");
    assert!(
        e["detail"]
            .as_str()
            .unwrap()
            .contains("existing containers add: none"),
        "{e}"
    );
}

#[test]
fn kubernetes_version_changes_the_verdict_and_refuses_unknown_releases() {
    // No release before 1.38 serves pods/dynamic.
    let o = check_example(
        "04-warm-pool-add-worker",
        &[
            "--subresource",
            "dynamic",
            "--kubernetes-version",
            "1.35",
            "-o",
            "json",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stdout_json(&o)["errors"][0]["origin"], "dynamic/gate-disabled");
    let o = check_example(
        "04-warm-pool-add-worker",
        &["--subresource", "dynamic", "--kubernetes-version", "1.32"],
    );
    expect_bad_input(&o, "supported: 1.35, 1.36, 1.37, or preview");
    assert!(stderr(&o).contains("--kubernetes-version"), "{}", stderr(&o));
    // The flag reaches the node-side commands too.
    let node = examples().join("node");
    let o = run(&[
        "probes",
        "--old",
        node.join("probes-old.yaml").to_str().unwrap(),
        "--new",
        node.join("probes-new.yaml").to_str().unwrap(),
        "--kubernetes-version",
        "1.35",
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let plan = stdout_json(&o);
    assert_eq!(
        plan["reconciled"], false,
        "no MutableContainerProbes in 1.35: {plan}"
    );
    assert!(
        plan["reason"]
            .as_str()
            .unwrap()
            .contains("MutableContainerProbes"),
        "{plan}"
    );
    let o = run(&[
        "allocate",
        node.join("allocate-add-worker.yaml").to_str().unwrap(),
        "--kubernetes-version",
        "1.30",
    ]);
    expect_bad_input(&o, "supported: 1.35, 1.36, 1.37, or preview");
}

#[test]
fn review_with_warn_enforcement_allows_with_warnings() {
    let dir = tempdir();
    let r = review(
        "abc",
        "",
        &pod("web", &[("a", "x")]),
        &pod("web", &[("a", "x"), ("b", "y")]),
    );
    let file = write(dir.path(), "review.json", &r.to_string());
    let settings = write(dir.path(), "warn.yaml", "enforcement: warn\n");
    let o = run(&[
        "review",
        file.to_str().unwrap(),
        "--settings",
        settings.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = stdout_json(&o);
    assert_eq!(v["response"]["allowed"], true);
    assert_eq!(
        v["response"]["warnings"][0],
        "podmut would deny: spec.containers: Forbidden: pod updates may not add or remove containers"
    );
    assert!(v["response"]["auditAnnotations"]["would-deny"].is_string(), "{v}");
    // The same review with the default enforcement is denied (exit 1).
    assert_eq!(run(&["review", file.to_str().unwrap()]).status.code(), Some(1));
}

#[test]
fn qos_takes_several_files_and_directories() {
    let dir = crate::support::tempdir();
    let pod = |name: &str, resources: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  containers: [{{name: a, image: i, resources: {resources}}}]\n"
        )
    };
    let one = crate::support::write(
        dir.path(),
        "one.yaml",
        &pod("g", "{limits: {cpu: 1, memory: 1Gi}}"),
    );
    let sub = dir.path().join("more");
    std::fs::create_dir_all(&sub).unwrap();
    crate::support::write(&sub, "b.yaml", &pod("b", "{requests: {cpu: 1}}"));
    crate::support::write(&sub, "e.json", &serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "e"}, "spec": {"containers": [{"name": "a", "image": "i"}]}}).to_string());
    let o = crate::support::run(&["qos", one.to_str().unwrap(), sub.to_str().unwrap(), "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", crate::support::stderr(&o));
    let v = crate::support::json_of(&o);
    let got: Vec<(&str, &str)> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["name"].as_str().unwrap(), i["qosClass"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [("g", "Guaranteed"), ("b", "Burstable"), ("e", "BestEffort")],
        "{v}"
    );
    assert!(v["items"][1]["file"].as_str().unwrap().ends_with("b.yaml"), "{v}");
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = crate::support::run(&["qos", empty.to_str().unwrap()]);
    crate::support::expect_bad_input(&o, "no .yaml, .yml or .json file");
}
