//! `podmut vap` through the built binary, and so through the component: KEP-5972's two
//! sample policies on the example changes, the JSON shape, the exit codes, an AdmissionReview
//! input and the bad-input errors; and `podmut plan --policy`, whose `--policy` files are the
//! component (a .wasm) or policies, told apart by their bytes.

use serde_json::Value;

use crate::support::{expect_bad_input, json_of, pod, policies, review, run, stderr, stdout, tempdir, write};

fn vap_policy(name: &str) -> String {
    policies().join("vap").join(name).to_string_lossy().into_owned()
}

/// `podmut COMMAND --old OLD --new NEW ARGS` on two Pods written to scratch files in `dir`.
fn on_pods(
    command: &[&str],
    dir: &std::path::Path,
    old: &Value,
    new: &Value,
    args: &[&str],
) -> std::process::Output {
    let old = write(dir, "old.json", &old.to_string());
    let new = write(dir, "new.json", &new.to_string());
    let mut all = command.to_vec();
    all.extend(["--old", old.to_str().unwrap(), "--new", new.to_str().unwrap()]);
    all.extend_from_slice(args);
    run(&all)
}

/// `podmut vap --policy P --old OLD --new NEW ARGS`.
fn vap(policy: &str, old: &Value, new: &Value, args: &[&str]) -> std::process::Output {
    on_pods(&["vap", "--policy", policy], tempdir().path(), old, new, args)
}

#[test]
fn disable_dynamic_containers_denies_an_added_container_on_pods_dynamic_only() {
    let (old, new) = (
        pod("web", &[("app", "nginx")]),
        pod("web", &[("app", "nginx"), ("tool", "busybox")]),
    );
    let policy = vap_policy("disable-dynamic-containers.yaml");
    let o = vap(&policy, &old, &new, &["--subresource", "dynamic", "-o", "json"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    assert_eq!(v["allowed"], false);
    assert_eq!(v["decisions"][0]["policy"], "disable-dynamic-containers");
    assert_eq!(v["decisions"][0]["binding"], "disable-dynamic-containers");
    assert_eq!(v["decisions"][0]["action"], "Deny");
    assert_eq!(v["decisions"][0]["reason"], "Invalid");
    assert_eq!(
        v["decisions"][0]["message"],
        "Dynamic Containers are disabled: adding or removing main containers is not allowed."
    );
    assert!(v["warnings"].is_array() && v["auditAnnotations"].is_object());

    let o = vap(&policy, &old, &new, &["-o", "json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "the plain path is not intercepted: {}",
        stderr(&o)
    );
    assert_eq!(json_of(&o)["decisions"].as_array().map(Vec::len), Some(0));
}

#[test]
fn pod_intent_immutable_allows_resources_and_denies_a_command_change() {
    let policy = vap_policy("pod-intent-immutable.yaml");
    let old = pod("web", &[("app", "nginx")]);
    let mut resized = old.clone();
    resized["spec"]["containers"][0]["resources"] = serde_json::json!({"limits": {"cpu": "2"}});
    let labels = ["--namespace-labels", "podmut.io/pod-intent=immutable"];
    let o = vap(
        &policy,
        &old,
        &resized,
        &[&["--subresource", "resize", "-o", "json"][..], &labels].concat(),
    );
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(json_of(&o)["evaluations"][0]["evaluated"], true);

    let mut command = old.clone();
    command["spec"]["containers"][0]["command"] = serde_json::json!(["sh", "-c", "id"]);
    let o = vap(&policy, &old, &command, &labels);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("DENIED: ValidatingAdmissionPolicy 'pod-intent-immutable' with binding 'pod-intent-immutable' denied request: containers are immutable, except allowed fields"),
        "{text}"
    );
}

#[test]
fn an_admission_review_is_read_with_its_user_and_subresource() {
    let dir = tempdir();
    let policy = write(
        dir.path(),
        "p.yaml",
        r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: only-alice}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [pods/dynamic]}]
  validations:
  - expression: request.userInfo.username == "alice"
    messageExpression: "'user ' + request.userInfo.username + ' may not'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: only-alice}
spec: {policyName: only-alice, validationActions: [Warn]}
"#,
    );
    let old = pod("web", &[("app", "nginx")]);
    let mut r = review("u1", "dynamic", &old, &old);
    let rv = write(dir.path(), "review.json", &r.to_string());
    let o = run(&[
        "vap",
        "--policy",
        policy.to_str().unwrap(),
        "--review",
        rv.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(
        json_of(&o)["evaluations"][0]["validations"][0]["outcome"],
        "admit"
    );

    r["request"]["userInfo"]["username"] = "bob".into();
    let rv = write(dir.path(), "review-bob.json", &r.to_string());
    let o = run(&[
        "vap",
        "--policy",
        policy.to_str().unwrap(),
        "--review",
        rv.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "Warn admits: {}", stderr(&o));
    assert_eq!(
        json_of(&o)["warnings"][0],
        "Validation failed for ValidatingAdmissionPolicy 'only-alice' with binding 'only-alice': user bob may not"
    );
}

/// A policy whose CEL does not compile (column 40 of spec.validations[0].expression).
const BROKEN_POLICY: &str = r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: broken}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [pods]}]
  validations:
  - expression: "object.spec.containers.all(c, c.name ==)"
"#;

#[test]
fn a_cel_compile_error_is_bad_input_naming_the_file_policy_field_and_column() {
    let dir = tempdir();
    let policy = write(dir.path(), "broken.yaml", BROKEN_POLICY);
    let p = pod("web", &[("app", "nginx")]);
    let o = vap(policy.to_str().unwrap(), &p, &p, &[]);
    expect_bad_input(
        &o,
        &format!(
            "{}: ValidatingAdmissionPolicy \"broken\": spec.validations[0].expression: compilation error at line 1, column",
            policy.display()
        ),
    );
}

/// A policy with a misspelled Pod field (`imagee`, column 32), and its binding.
const TYPO_POLICY: &str = r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: typo}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [pods]}]
  validations:
  - expression: "object.spec.containers.all(c, c.imagee != '')"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: typo}
spec: {policyName: typo, validationActions: [Deny]}
"#;

/// `podmut vap`'s / `podmut plan`'s exit-2 message for [`TYPO_POLICY`] written to `policy`.
fn typo_error(policy: &std::path::Path) -> String {
    format!(
        "{}: ValidatingAdmissionPolicy \"typo\": spec.validations[0].expression: type checking error at line 1, column 32: undefined field 'imagee' (checked against /v1, Kind=Pod",
        policy.display()
    )
}

#[test]
fn a_misspelled_pod_field_is_bad_input_unless_type_check_warn() {
    let dir = tempdir();
    let policy = write(dir.path(), "typo.yaml", TYPO_POLICY);
    let p = pod("web", &[("app", "nginx")]);
    let o = vap(policy.to_str().unwrap(), &p, &p, &[]);
    expect_bad_input(&o, &typo_error(&policy));

    // --type-check warn: evaluated anyway (the missing key is an error under Fail), the warning
    // in the API server's shape.
    let o = vap(
        policy.to_str().unwrap(),
        &p,
        &p,
        &["--type-check", "warn", "-o", "json"],
    );
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    assert_eq!(v["typeChecking"][0]["policy"], "typo");
    let w = &v["typeChecking"][0]["expressionWarnings"][0];
    assert_eq!(w["fieldRef"], "spec.validations[0].expression");
    assert_eq!(
        w["warning"],
        "/v1, Kind=Pod: ERROR: <input>:1:32: undefined field 'imagee'\n | object.spec.containers.all(c, c.imagee != '')\n | ...............................^\n"
    );
    let o = vap(policy.to_str().unwrap(), &p, &p, &["--type-check", "warn"]);
    assert!(
        stdout(&o).contains("type checking: policy typo spec.validations[0].expression: /v1, Kind=Pod: ERROR: <input>:1:32: undefined field 'imagee'"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn vap_help_names_the_contract_flags() {
    let help = stdout(&run(&["vap", "--help"]));
    for flag in [
        "--policy",
        "--old",
        "--new",
        "--subresource",
        "--review",
        "--params",
        "--namespace-labels",
        "--user",
        "--output",
        "--type-check",
    ] {
        assert!(help.contains(flag), "vap --help lacks {flag}");
    }
}

// ------------------------------------------------------------------------------------------
// `podmut plan --policy`: plan's `--policy` names the component (a .wasm) or policy files

/// `podmut plan --old OLD --new NEW ARGS`, the Pods written to `dir`.
fn plan(dir: &std::path::Path, old: &Value, new: &Value, args: &[&str]) -> std::process::Output {
    on_pods(&["plan"], dir, old, new, args)
}

#[test]
fn plan_with_a_policy_file_reports_the_vap_denial_of_a_dynamic_add() {
    let dir = tempdir();
    // A running, initialized Pod: pods/dynamic may add a container to it.
    let running = |mut p: Value| {
        p["status"] = serde_json::json!({"phase": "Running", "conditions": [{"type": "Initialized", "status": "True"}]});
        p
    };
    let (old, new) = (
        running(pod("web", &[("app", "nginx")])),
        running(pod("web", &[("app", "nginx"), ("tool", "busybox")])),
    );
    let policy = vap_policy("disable-dynamic-containers.yaml");
    let node = crate::support::node_example("node.yaml");
    let args = ["--subresource", "dynamic", "--policy", &policy, "--node", &node];
    let o = plan(dir.path(), &old, &new, &[&args[..], &["-o", "json"]].concat());
    assert_eq!(o.status.code(), Some(1), "a policy denies: {}", stderr(&o));
    let v = json_of(&o);
    assert_eq!(
        v["admission"]["allowed"], true,
        "the API server's own rules admit it: {v}"
    );
    assert_eq!(v["vap"]["allowed"], false, "{v}");
    assert_eq!(v["vap"]["decisions"][0]["policy"], "disable-dynamic-containers");
    assert_eq!(v["vap"]["decisions"][0]["action"], "Deny");
    assert!(v["vap"]["warnings"].is_array() && v["vap"]["auditAnnotations"].is_object());
    assert_eq!(v["applies"], false);
    assert!(
        v["allocation"]["skipped"]
            .as_str()
            .is_some_and(|s| s.contains("ValidatingAdmissionPolicy denies")),
        "nothing reaches the node: {v}"
    );

    let o = plan(dir.path(), &old, &new, &args);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    crate::support::assert_contains_all(
        &text,
        &[
            "  admission: allowed\n",
            "  vap: denied: ValidatingAdmissionPolicy 'disable-dynamic-containers' with binding 'disable-dynamic-containers' denied request: Dynamic Containers are disabled",
            "    policy disable-dynamic-containers binding disable-dynamic-containers: evaluated",
            "Plan: the API server admits the change, but ValidatingAdmissionPolicies deny it (1 decision).",
        ],
    );

    // The same policy on an allowed change of the plain path: not intercepted, the plan applies.
    let mut v1 = old.clone();
    v1["spec"]["containers"][0]["image"] = "nginx:1".into();
    let mut v2 = old;
    v2["spec"]["containers"][0]["image"] = "nginx:2".into();
    let o = plan(dir.path(), &v1, &v2, &["--policy", &policy, "-o", "yaml"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v: Value = serde_yaml_ng::from_slice(&o.stdout).expect("yaml");
    assert_eq!(v["vap"]["allowed"], true, "{v}");
    assert_eq!(v["vap"]["decisions"].as_array().map(Vec::len), Some(0), "{v}");
    assert_eq!(v["applies"], true);
}

#[test]
fn plan_skips_the_policies_when_the_api_server_denies_first_and_says_when_none_are_given() {
    let dir = tempdir();
    let (old, new) = (
        pod("web", &[("app", "nginx")]),
        pod("web", &[("app", "nginx"), ("tool", "busybox")]),
    );
    let policy = vap_policy("pod-intent-immutable.yaml");
    let o = plan(dir.path(), &old, &new, &["--policy", &policy, "-o", "json"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    assert_eq!(v["admission"]["allowed"], false);
    assert!(
        v["vap"]["skipped"]
            .as_str()
            .is_some_and(|s| s.contains("run only after it")),
        "{v}"
    );
    let o = plan(dir.path(), &old, &old, &["-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert!(json_of(&o)["vap"]["skipped"].is_string());
    assert!(
        !stdout(&plan(dir.path(), &old, &old, &[])).contains("vap:"),
        "no policies, no vap line in the text"
    );
}

#[test]
fn plan_takes_namespace_labels_and_reads_a_wasm_policy_as_the_component() {
    let dir = tempdir();
    let wasm = dir.path().join("podmut.wasm");
    let o = run(&["component", "--output", wasm.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let policy = vap_policy("pod-intent-immutable.yaml");
    // An image update: the API server allows it, pod-intent-immutable does not.
    let old = pod("web", &[("app", "nginx:1")]);
    let image = pod("web", &[("app", "nginx:2")]);
    let labels = ["--namespace-labels", "podmut.io/pod-intent=immutable"];
    // The component first or last: told apart by its bytes, not by the order.
    for args in [
        vec!["--policy", wasm.to_str().unwrap(), "--policy", &policy],
        vec!["--policy", &policy, "--policy", wasm.to_str().unwrap()],
    ] {
        let o = plan(
            dir.path(),
            &old,
            &image,
            &[&args[..], &labels, &["-o", "json"]].concat(),
        );
        assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
        let v = json_of(&o);
        assert_eq!(
            v["vap"]["decisions"][0]["message"],
            "containers are immutable, except allowed fields"
        );
    }
    // Without the namespace label the binding does not select the Pod.
    let o = plan(dir.path(), &old, &image, &["--policy", &policy, "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(json_of(&o)["vap"]["allowed"], true);

    // A .wasm alone still only names the component.
    let o = plan(
        dir.path(),
        &old,
        &old,
        &["--policy", wasm.to_str().unwrap(), "-o", "json"],
    );
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert!(json_of(&o)["vap"]["skipped"].is_string());
    // Two components are a usage error; a broken one fails as a component, not as a policy file.
    let o = plan(
        dir.path(),
        &old,
        &old,
        &[
            "--policy",
            wasm.to_str().unwrap(),
            "--policy",
            wasm.to_str().unwrap(),
        ],
    );
    expect_bad_input(&o, "--policy: at most one component (.wasm)");
    let junk = write(dir.path(), "junk.wasm", "not wasm");
    let o = plan(dir.path(), &old, &old, &["--policy", junk.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3), "stderr: {}", stderr(&o));
    assert!(
        stderr(&o).contains("not a WebAssembly component"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn plan_names_a_broken_policy_file() {
    let dir = tempdir();
    let policy = write(dir.path(), "broken.yaml", BROKEN_POLICY);
    let p = pod("web", &[("app", "nginx")]);
    let o = plan(dir.path(), &p, &p, &["--policy", policy.to_str().unwrap()]);
    expect_bad_input(
        &o,
        &format!(
            "{}: ValidatingAdmissionPolicy \"broken\": spec.validations[0].expression: compilation error",
            policy.display()
        ),
    );
}

#[test]
fn plan_type_checks_its_policy_files_as_vap_does() {
    let dir = tempdir();
    let policy = write(dir.path(), "typo.yaml", TYPO_POLICY);
    let p = pod("web", &[("app", "nginx")]);
    let with = |args: &[&str]| {
        let mut all = vec!["--policy", policy.to_str().unwrap()];
        all.extend_from_slice(args);
        plan(dir.path(), &p, &p, &all)
    };
    expect_bad_input(&with(&[]), &typo_error(&policy));
    expect_bad_input(&with(&["--type-check", "error"]), &typo_error(&policy));

    // --type-check warn: evaluated (the missing key fails the policy), the warning in the vap
    // section as `podmut vap -o json` has it, and in the text's vap block.
    let o = with(&["--type-check", "warn", "-o", "json"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    assert_eq!(v["admission"]["allowed"], true);
    assert_eq!(v["vap"]["allowed"], false);
    assert_eq!(v["vap"]["typeChecking"][0]["policy"], "typo");
    let w = &v["vap"]["typeChecking"][0]["expressionWarnings"][0];
    assert_eq!(w["fieldRef"], "spec.validations[0].expression");
    assert!(
        w["warning"]
            .as_str()
            .unwrap()
            .starts_with("/v1, Kind=Pod: ERROR: <input>:1:32: undefined field 'imagee'"),
        "{w}"
    );
    let text = stdout(&with(&["--type-check", "warn"]));
    assert!(
        text.contains("    type checking: policy typo spec.validations[0].expression: /v1, Kind=Pod: ERROR: <input>:1:32: undefined field 'imagee'"),
        "{text}"
    );
    let yaml = stdout(&with(&["--type-check", "warn", "-o", "yaml"]));
    assert!(yaml.contains("typeChecking:"), "{yaml}");
    assert!(stdout(&run(&["plan", "--help"])).contains("--type-check"));
}

#[test]
fn subresource_none_is_the_main_resource_as_in_check() {
    let dir = tempdir();
    let policy = write(
        dir.path(),
        "main-resource.yaml",
        "apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: main-resource}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [''], apiVersions: [v1], operations: [UPDATE], resources: [pods]}
  validations:
  - expression: request.subResource == ''
    message: not the main resource
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: main-resource}
spec: {policyName: main-resource, validationActions: [Deny]}
",
    );
    let policy = policy.to_string_lossy().into_owned();
    let (old, new) = (pod("web", &[("app", "nginx")]), pod("web", &[("app", "nginx:2")]));
    for args in [&["--subresource", "none"][..], &[]] {
        let o = vap(&policy, &old, &new, &[args, &["-o", "json"]].concat());
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert_eq!(json_of(&o)["evaluations"][0]["evaluated"], true, "{args:?}");
    }
    let o = vap(&policy, &old, &new, &["--subresource", "exec"]);
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(&o));
    assert!(
        stderr(&o).contains("unknown subresource \"exec\""),
        "{}",
        stderr(&o)
    );
}

const NO_LATEST: &str = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: no-latest}\nspec:\n  failurePolicy: Fail\n  matchConstraints:\n    resourceRules:\n    - {apiGroups: [''], apiVersions: [v1], operations: [CREATE], resources: [pods]}\n    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}\n  validations:\n  - expression: \"(object.kind == 'Pod' ? object.spec.containers : object.spec.template.spec.containers).all(c, !c.image.endsWith(':latest'))\"\n    message: images are pinned\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: no-latest}\nspec: {policyName: no-latest, validationActions: [Deny]}\n";

fn pod_doc(name: &str, image: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  containers: [{{name: app, image: '{image}'}}]\n"
    )
}

#[test]
fn many_objects_get_a_line_each_and_a_summary() {
    let dir = tempdir();
    let policy = write(dir.path(), "policy.yaml", NO_LATEST);
    let stream = [pod_doc("a", "nginx:1.27"), pod_doc("b", "nginx:latest")].join("---\n");
    let pods = write(dir.path(), "pods.yaml", &stream);
    let o = run(&[
        "vap",
        "--policy",
        policy.to_str().unwrap(),
        "--new",
        pods.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Pod shop/a: ALLOWED\n"), "{text}");
    assert!(text.contains("Pod shop/b: DENIED: ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest' denied request: images are pinned\n"), "{text}");
    assert!(
        text.ends_with("2 resources: 1 allowed, 1 denied, 0 errors\n"),
        "{text}"
    );
}

#[test]
fn a_directory_a_list_and_a_workload_are_read_as_kubectl_reads_them() {
    let dir = tempdir();
    let policy = write(dir.path(), "policy.yaml", NO_LATEST);
    let manifests = dir.path().join("manifests");
    std::fs::create_dir_all(manifests.join("nested")).unwrap();
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
        serde_yaml_ng::from_str::<Value>(&pod_doc("c", "busybox:1")).unwrap(),
        serde_yaml_ng::from_str::<Value>(&pod_doc("d", "busybox:latest")).unwrap(),
    ]});
    write(&manifests, "a-list.json", &list.to_string());
    write(&manifests, "b-pod.yaml", &pod_doc("e", "redis:7"));
    write(&manifests, "notes.txt", "not a manifest");
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: app, image: 'nginx:latest'}]}\n";
    write(&manifests.join("nested"), "deploy.yaml", deployment);
    let p = policy.to_str().unwrap();
    let m = manifests.to_str().unwrap();
    let o = run(&["vap", "--policy", p, "--new", m, "-o", "json"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    let names: Vec<(&str, bool)> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["name"].as_str().unwrap(), i["allowed"].as_bool().unwrap()))
        .collect();
    assert_eq!(names, [("c", true), ("d", false), ("e", true)], "{v}");
    assert_eq!(
        v["summary"],
        serde_json::json!({"resources": 3, "allowed": 2, "denied": 1, "errors": 0})
    );
    assert!(
        v["items"][0]["file"].as_str().unwrap().ends_with("a-list.json"),
        "{v}"
    );
    let o = run(&["vap", "--policy", p, "--new", m, "-R", "-o", "json"]);
    let v = json_of(&o);
    let last = &v["items"][3];
    assert_eq!(
        (last["kind"].as_str(), last["allowed"].as_bool()),
        (Some("Deployment"), Some(false)),
        "{v}"
    );
    assert_eq!(v["summary"]["denied"], 2);
}

#[test]
fn a_bad_object_among_many_is_named_and_the_rest_are_judged() {
    let dir = tempdir();
    let policy = write(dir.path(), "policy.yaml", NO_LATEST);
    let stream = format!(
        "{}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: bad, namespace: shop}}\nspec: {{containers: [{{name: app, image: 7}}]}}\n",
        pod_doc("ok", "nginx:1")
    );
    let pods = write(dir.path(), "pods.yaml", &stream);
    let o = run(&[
        "vap",
        "--policy",
        policy.to_str().unwrap(),
        "--new",
        pods.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Pod shop/ok: ALLOWED"), "{text}");
    assert!(text.contains("Pod shop/bad: error: "), "{text}");
    assert!(text.contains("spec.containers[0].image"), "{text}");
    assert!(
        text.ends_with("2 resources: 1 allowed, 0 denied, 1 errors\n"),
        "{text}"
    );
    let old = write(dir.path(), "old.yaml", &pod_doc("ok", "nginx:1"));
    let o = run(&[
        "vap",
        "--policy",
        policy.to_str().unwrap(),
        "--old",
        old.to_str().unwrap(),
        "--new",
        pods.to_str().unwrap(),
    ]);
    expect_bad_input(&o, "--old is for one object");
}

#[test]
fn a_list_of_one_object_is_read_as_that_object() {
    let dir = tempdir();
    let policy = write(dir.path(), "policy.yaml", NO_LATEST);
    let item = serde_yaml_ng::from_str::<Value>(&pod_doc("d", "busybox:latest")).unwrap();
    let list = write(
        dir.path(),
        "list.json",
        &serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [item]}).to_string(),
    );
    let o = run(&[
        "vap",
        "--policy",
        policy.to_str().unwrap(),
        "--new",
        list.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    assert!(
        v.get("items").is_none(),
        "one object gets the single-object report: {v}"
    );
    assert_eq!(v["allowed"], false, "{v}");
}

/// `podmut vap generate --settings FILE -o json`: the List it writes.
fn generated_list(settings: &std::path::Path) -> serde_json::Value {
    let o = run(&[
        "vap",
        "generate",
        "--settings",
        settings.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}: {}", settings.display(), stderr(&o));
    json_of(&o)
}

#[test]
fn generate_writes_the_settings_cel_can_express_as_policies_and_bindings() {
    let dir = tempdir();
    let settings = write(
        dir.path(),
        "s.yaml",
        "securityContextEscalation: forbid\nallowPrivileged: false\nmemoryLimitDecrease: forbid\nenforcement: warn\n",
    );
    let v = generated_list(&settings);
    let items = v["items"].as_array().unwrap();
    let names: Vec<(&str, &str)> = items
        .iter()
        .map(|i| {
            (
                i["kind"].as_str().unwrap(),
                i["metadata"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("ValidatingAdmissionPolicy", "podmut-strict"),
            ("ValidatingAdmissionPolicyBinding", "podmut-strict"),
            ("ValidatingAdmissionPolicy", "podmut-allow-privileged"),
            ("ValidatingAdmissionPolicyBinding", "podmut-allow-privileged"),
            ("ValidatingAdmissionPolicy", "podmut-memory-limit-decrease"),
            ("ValidatingAdmissionPolicyBinding", "podmut-memory-limit-decrease"),
        ]
    );
    assert_eq!(items[1]["spec"]["validationActions"], serde_json::json!(["Warn"]));
    assert_eq!(
        items[0]["spec"]["matchConstraints"]["resourceRules"][0]["resources"],
        serde_json::json!(["pods/dynamic"])
    );
    // The YAML stream names what no policy can express, and kubectl reads it back.
    let o = run(&["vap", "generate", "--settings", settings.to_str().unwrap()]);
    let text = stdout(&o);
    assert!(
        text.contains("# Not expressible as a policy:\n") && text.contains("# - fieldValidation: "),
        "{text}"
    );
    let docs = crate::support::documents(&write(dir.path(), "out.yaml", &text));
    assert_eq!(docs.len(), 6);
    // The defaults ask for nothing a policy can express.
    let o = run(&["vap", "generate"]);
    assert!(
        stdout(&o).contains("These settings ask for nothing a policy can express."),
        "{}",
        stdout(&o)
    );
}

#[test]
fn the_generated_strict_policy_denies_what_the_strict_profile_refuses() {
    let dir = tempdir();
    let o = run(&[
        "vap",
        "generate",
        "--settings",
        policies().join("strict.yaml").to_str().unwrap(),
    ]);
    let generated = write(dir.path(), "strict-vap.yaml", &stdout(&o));
    let old = pod("web", &[("app", "nginx")]);
    let mut new = pod("web", &[("app", "nginx"), ("tool", "busybox")]);
    new["spec"]["containers"][1]["securityContext"] =
        serde_json::json!({"capabilities": {"add": ["SYS_ADMIN"]}});
    let out = vap(
        generated.to_str().unwrap(),
        &old,
        &new,
        &["--subresource", "dynamic", "-o", "json"],
    );
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    let v = json_of(&out);
    assert_eq!(
        v["decisions"][0]["message"],
        "containers added to a running pod may only add capabilities an existing container adds"
    );
    let plain = pod("web", &[("app", "nginx"), ("tool", "busybox")]);
    let out = vap(
        generated.to_str().unwrap(),
        &old,
        &plain,
        &["--subresource", "dynamic"],
    );
    assert_eq!(out.status.code(), Some(0), "stdout: {}", stdout(&out));
}

#[test]
fn generate_writes_each_library_guard_as_its_policy() {
    let library = policies().join("library");
    let cases = [
        ("resize-limits", "podmut-resize-limits", "pods/resize", None),
        (
            "ephemeral-break-glass",
            "podmut-debug-containers",
            "pods/ephemeralcontainers",
            None,
        ),
        (
            "freeze-metadata",
            "podmut-freeze-metadata",
            "pods",
            Some("running"),
        ),
    ];
    for (entry, name, resource, condition) in cases {
        let settings = library.join(entry).join("settings.yaml");
        let v = generated_list(&settings);
        let items = v["items"].as_array().unwrap();
        assert_eq!(items.len(), 2, "{entry}: one policy and its binding: {v}");
        let spec = &items[0]["spec"];
        assert_eq!(items[0]["metadata"]["name"], name, "{entry}");
        assert_eq!(
            spec["matchConstraints"]["resourceRules"][0]["resources"],
            serde_json::json!([resource]),
            "{entry}"
        );
        assert_eq!(spec["matchConditions"][0]["name"].as_str(), condition, "{entry}");
        assert_eq!(spec["validations"].as_array().map(Vec::len), Some(2), "{entry}");
    }
    // A step of 3 is the old value summed three times: exact, where 0.3 * 3 in floating point is not 0.9.
    let dir = tempdir();
    let settings = write(dir.path(), "s.yaml", "resizeLimits: {maxStep: 3}\n");
    let v = generated_list(&settings);
    let validations = v["items"][0]["spec"]["validations"].as_array().unwrap().clone();
    assert_eq!(validations.len(), 1, "no ceiling set, no ceiling checked: {v}");
    let step = validations[0]["expression"].as_str().unwrap();
    assert_eq!(step.matches(".add(").count(), 2, "{step}");
    let generated = write(dir.path(), "step.json", &v.to_string());
    let sized = |cpu: &str| {
        let mut p = pod("web", &[("app", "nginx")]);
        p["spec"]["containers"][0]["resources"] =
            serde_json::json!({"requests": {"cpu": cpu}, "limits": {"cpu": cpu}});
        p
    };
    let exact = vap(
        generated.to_str().unwrap(),
        &sized("300m"),
        &sized("900m"),
        &["--subresource", "resize"],
    );
    assert_eq!(exact.status.code(), Some(0), "{}", stdout(&exact));
    let over = vap(
        generated.to_str().unwrap(),
        &sized("300m"),
        &sized("901m"),
        &["--subresource", "resize"],
    );
    assert_eq!(over.status.code(), Some(1), "{}", stdout(&over));
    // The same changes through podmut's guard.
    for (cpu, code) in [("900m", 0), ("901m", 1)] {
        let (old, new) = (
            write(dir.path(), "old.json", &sized("300m").to_string()),
            write(dir.path(), "new.json", &sized(cpu).to_string()),
        );
        let o = run(&[
            "check",
            "--old",
            old.to_str().unwrap(),
            "--new",
            new.to_str().unwrap(),
            "--subresource",
            "resize",
            "--settings",
            settings.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(code), "{cpu}: {}{}", stdout(&o), stderr(&o));
    }
}

#[test]
fn bad_guard_settings_are_named() {
    let dir = tempdir();
    for (text, said) in [
        (
            "resizeLimits: {maxStep: 11}\n",
            "maxStep must be a whole number from 1 to 10",
        ),
        ("resizeLimits: {maxCpu: lots}\n", "\"lots\" is not a quantity"),
        ("resizeLimits: {maxMemory: '0'}\n", "not a positive quantity"),
        ("debugContainers: {forbid: true}\n", "forbid"),
    ] {
        let settings = write(dir.path(), "s.yaml", text);
        let o = run(&["vap", "generate", "--settings", settings.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{text}: {}", stdout(&o));
        assert!(stderr(&o).contains(said), "{text}: {}", stderr(&o));
    }
}
