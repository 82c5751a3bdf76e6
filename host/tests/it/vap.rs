//! `podmut vap` (issue 17) through the built binary, and so through the component: KEP-5972's two
//! sample policies on the example changes, the JSON shape, the exit codes, an AdmissionReview
//! input and the bad-input errors.

use serde_json::Value;

use crate::support::{expect_bad_input, json_of, pod, policies, review, run, stderr, stdout, tempdir, write};

fn vap_policy(name: &str) -> String {
    policies().join("vap").join(name).to_string_lossy().into_owned()
}

/// `podmut vap --policy P --old OLD --new NEW ARGS` on two Pods written to scratch files.
fn vap(policy: &str, old: &Value, new: &Value, args: &[&str]) -> std::process::Output {
    let dir = tempdir();
    let old = write(dir.path(), "old.json", &old.to_string());
    let new = write(dir.path(), "new.json", &new.to_string());
    let mut all = vec![
        "vap",
        "--policy",
        policy,
        "--old",
        old.to_str().unwrap(),
        "--new",
        new.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    run(&all)
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

#[test]
fn a_cel_compile_error_is_bad_input_naming_the_file_policy_field_and_column() {
    let dir = tempdir();
    let policy = write(
        dir.path(),
        "broken.yaml",
        r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: broken}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [pods]}]
  validations:
  - expression: "object.spec.containers.all(c, c.name ==)"
"#,
    );
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
    ] {
        assert!(help.contains(flag), "vap --help lacks {flag}");
    }
}
