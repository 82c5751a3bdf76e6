//! The evaluator on KEP-5972's two sample policies and the behaviours upstream's dispatcher and
//! validator define (`validating/dispatcher.go`, `validator.go`).

use std::collections::BTreeMap;

use super::*;

const DISABLE_DYNAMIC: &str = include_str!("../../../policies/vap/disable-dynamic-containers.yaml");
const POD_INTENT: &str = include_str!("../../../policies/vap/pod-intent-immutable.yaml");

const POD: &str = r#"{"apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web", "namespace": "team", "labels": {"app": "web"}},
  "spec": {"containers": [{"name": "app", "image": "nginx:1.25", "command": ["nginx"],
    "resources": {"requests": {"cpu": "500m"}, "limits": {"cpu": "1"}}}]}}"#;

fn pod_with(f: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(POD).unwrap();
    f(&mut v);
    v.to_string()
}

fn added_container() -> String {
    pod_with(|v| {
        v["spec"]["containers"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"name": "sidecar", "image": "busybox"}));
    })
}

fn request(policy: &str, new: &str, sub: &str) -> VapRequest {
    VapRequest {
        policies: vec![policy.to_owned()],
        old_object: Some(POD.to_owned()),
        object: Some(new.to_owned()),
        subresource: sub.to_owned(),
        ..VapRequest::default()
    }
}

fn immutable_namespace(mut r: VapRequest) -> VapRequest {
    r.namespace_labels = Some(BTreeMap::from([(
        "podmut.io/pod-intent".to_owned(),
        "immutable".to_owned(),
    )]));
    r
}

#[test]
fn disable_dynamic_containers_denies_adding_a_container_through_pods_dynamic() {
    let r = vap_evaluate(&request(DISABLE_DYNAMIC, &added_container(), "dynamic")).unwrap();
    assert!(!r.allowed, "{r:#?}");
    assert_eq!(r.decisions.len(), 1);
    let d = &r.decisions[0];
    assert_eq!(
        (d.policy.as_str(), d.binding.as_str(), d.action.as_str()),
        ("disable-dynamic-containers", "disable-dynamic-containers", "Deny")
    );
    assert_eq!(
        d.message,
        "Dynamic Containers are disabled: adding or removing main containers is not allowed."
    );
    assert_eq!(d.reason.as_deref(), Some("Invalid"));
    assert_eq!(
        r.message,
        "ValidatingAdmissionPolicy 'disable-dynamic-containers' with binding 'disable-dynamic-containers' denied request: Dynamic Containers are disabled: adding or removing main containers is not allowed."
    );
}

#[test]
fn disable_dynamic_containers_does_not_match_the_plain_path() {
    let r = vap_evaluate(&request(DISABLE_DYNAMIC, &added_container(), "")).unwrap();
    assert!(r.allowed, "{r:#?}");
    assert!(r.decisions.is_empty());
    assert!(
        r.evaluations[0]
            .detail
            .contains("no rule of spec.matchConstraints.resourceRules matches UPDATE pods"),
        "{r:#?}"
    );
}

#[test]
fn disable_dynamic_containers_allows_a_resize_through_pods_dynamic() {
    let new = pod_with(|v| v["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "2".into());
    let r = vap_evaluate(&request(DISABLE_DYNAMIC, &new, "dynamic")).unwrap();
    assert!(r.allowed, "{r:#?}");
    assert_eq!(r.evaluations[0].validations[0].outcome, "admit");
}

#[test]
fn pod_intent_immutable_allows_a_resources_change() {
    let new = pod_with(|v| v["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "2".into());
    for sub in ["", "resize", "dynamic"] {
        let r = vap_evaluate(&immutable_namespace(request(POD_INTENT, &new, sub))).unwrap();
        assert!(r.allowed, "{sub}: {r:#?}");
        let e = &r.evaluations[0];
        assert!(e.evaluated, "{sub}: {r:#?}");
        assert_eq!(
            e.validations
                .iter()
                .map(|v| v.outcome.as_str())
                .collect::<Vec<_>>(),
            ["admit", "admit"]
        );
    }
}

#[test]
fn pod_intent_immutable_denies_a_command_change() {
    let new = pod_with(|v| v["spec"]["containers"][0]["command"] = serde_json::json!(["sh", "-c", "evil"]));
    let r = vap_evaluate(&immutable_namespace(request(POD_INTENT, &new, ""))).unwrap();
    assert!(!r.allowed, "{r:#?}");
    assert_eq!(r.decisions.len(), 1, "{r:#?}");
    assert_eq!(
        r.decisions[0].message,
        "containers are immutable, except allowed fields"
    );
    assert_eq!(r.evaluations[0].validations[0].outcome, "admit");
    assert_eq!(r.evaluations[0].validations[1].outcome, "deny");
}

#[test]
fn pod_intent_immutable_denies_adding_a_container_and_a_spec_field() {
    let r = vap_evaluate(&immutable_namespace(request(
        POD_INTENT,
        &added_container(),
        "dynamic",
    )))
    .unwrap();
    assert!(!r.allowed);
    assert_eq!(
        r.decisions[0].message,
        "containers are immutable, except allowed fields"
    );
    let new = pod_with(|v| v["spec"]["hostname"] = "other".into());
    let r = vap_evaluate(&immutable_namespace(request(POD_INTENT, &new, ""))).unwrap();
    assert!(!r.allowed);
    assert_eq!(r.decisions[0].message, "pod spec field is immutable");
}

#[test]
fn pod_intent_immutable_skips_status_updates_and_other_namespaces() {
    let new = pod_with(|v| v["spec"]["containers"][0]["command"] = serde_json::json!(["x"]));
    let r = vap_evaluate(&immutable_namespace(request(POD_INTENT, &new, "status"))).unwrap();
    assert!(r.allowed);
    assert!(
        r.evaluations[0].detail.contains("excludes UPDATE pods/status"),
        "{r:#?}"
    );
    let r = vap_evaluate(&request(POD_INTENT, &new, "")).unwrap();
    assert!(r.allowed);
    assert!(
        r.evaluations[0]
            .detail
            .contains("namespaceSelector does not select"),
        "{r:#?}"
    );
}

fn one_validation(expression: &str, failure_policy: &str) -> String {
    format!(
        r#"[{{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
  "metadata": {{"name": "p"}},
  "spec": {{"failurePolicy": "{failure_policy}",
    "matchConstraints": {{"resourceRules": [{{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["UPDATE"], "resources": ["pods"]}}]}},
    "validations": [{{"expression": {expression:?}}}]}}}},
 {{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
  "metadata": {{"name": "p"}}, "spec": {{"policyName": "p", "validationActions": ["Deny"]}}}}]"#
    )
}

#[test]
fn a_compile_error_names_the_input_the_policy_the_field_and_the_column() {
    let e = vap_evaluate(&request(
        &one_validation("object.spec.containers.all(c, c.name ==)", "Fail"),
        POD,
        "",
    ))
    .unwrap_err();
    assert_eq!(e.input(), "policy[0]");
    assert!(
        e.message().starts_with(
            "ValidatingAdmissionPolicy \"p\": spec.validations[0].expression: compilation error at line 1, column 40:"
        ),
        "{e}"
    );
}

#[test]
fn the_cost_limit_stops_a_hostile_expression_before_it_runs() {
    for hostile in [
        "lists.range(1000).all(i, lists.range(1000).all(j, lists.range(1000).all(k, i + j + k >= 0)))",
        "lists.range(size(object.spec.containers) * 1000000).all(i, i >= 0)",
        "object.spec.containers.all(c, lists.range(100000).all(i, lists.range(100).exists(j, j == i)))",
    ] {
        let r = vap_evaluate(&request(&one_validation(hostile, "Fail"), POD, "")).unwrap();
        assert!(!r.allowed, "{hostile}");
        assert!(
            r.decisions[0]
                .message
                .contains("operation cancelled: actual cost limit exceeded"),
            "{hostile}: {}",
            r.decisions[0].message
        );
        // Under Ignore it is admitted, and the refusal is still shown on the validation.
        let r = vap_evaluate(&request(&one_validation(hostile, "Ignore"), POD, "")).unwrap();
        assert!(r.allowed);
        assert_eq!(r.evaluations[0].validations[0].outcome, "error");
    }
    // Ordinary nested comprehensions over the Pod are well within the limit.
    let fine = "object.spec.containers.all(c, oldObject.spec.containers.exists(o, o.name == c.name && o.all(k, k in c)))";
    let r = vap_evaluate(&request(&one_validation(fine, "Fail"), POD, "")).unwrap();
    assert!(r.allowed, "{r:#?}");
}

#[test]
fn the_kep_samples_type_check_cleanly() {
    for policy in [DISABLE_DYNAMIC, POD_INTENT] {
        assert_eq!(
            crate::vap_type_check(&[policy.to_owned()]),
            Ok(vec![]),
            "{policy}"
        );
    }
}

#[test]
fn a_type_checking_warning_is_the_api_servers_and_names_the_field_and_column() {
    let checks =
        crate::vap_type_check(&[one_validation("object.spec.contaners.size() == 1", "Fail")]).unwrap();
    assert_eq!(checks.len(), 1);
    assert_eq!(checks[0].policy, "p");
    let w = &checks[0].expression_warnings[0];
    assert_eq!(w.field_ref, "spec.validations[0].expression");
    assert_eq!(
        w.warning,
        "/v1, Kind=Pod: ERROR: <input>:1:12: undefined field 'contaners'\n | object.spec.contaners.size() == 1\n | ...........^\n"
    );
    assert_eq!(w.error.input(), "policy[0]");
    assert!(
        w.error.message().starts_with(
            "ValidatingAdmissionPolicy \"p\": spec.validations[0].expression: type checking error at line 1, column 12: undefined field 'contaners' (checked against /v1, Kind=Pod;"
        ),
        "{}",
        w.error
    );
    // Evaluation goes on as the API server's does: the missing key is an error under Fail.
    let r = vap_evaluate(&request(
        &one_validation("object.spec.contaners.size() == 1", "Fail"),
        POD,
        "",
    ))
    .unwrap();
    assert!(!r.allowed);
}

#[test]
fn a_wrong_request_field_is_a_compile_error() {
    let e = vap_evaluate(&request(
        &one_validation("request.operaton == 'UPDATE'", "Fail"),
        POD,
        "",
    ))
    .unwrap_err();
    assert!(
        e.message().starts_with(
            "ValidatingAdmissionPolicy \"p\": spec.validations[0].expression: compilation error at line 1, column 8: undefined field 'operaton'"
        ),
        "{e}"
    );
    assert_eq!(
        crate::vap_type_check(&[one_validation("request.operaton == 'UPDATE'", "Fail")]),
        Err(e)
    );
}

const TEMPLATE_POLICY: &str = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-latest}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: "object.spec.template.spec.containers.all(c, !c.image.endsWith(':latest'))"
    message: images are pinned
  - expression: "object.spec.replicas <= 5 && object.spec.revisionHistoryLimit == 10"
    message: at most five replicas
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-latest}
spec: {policyName: no-latest, validationActions: [Deny]}
"#;

const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: team}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: a, image: IMAGE}]\n";

fn deployment(image: &str) -> String {
    DEPLOYMENT.replace("IMAGE", image)
}

#[test]
fn a_policy_on_deployments_sees_the_defaulted_deployment() {
    let r = |new: String, old: Option<String>| {
        vap_evaluate(&VapRequest {
            policies: vec![TEMPLATE_POLICY.to_owned()],
            object: Some(new),
            old_object: old,
            ..VapRequest::default()
        })
        .unwrap()
    };
    // The defaulted `replicas: 1` and `revisionHistoryLimit: 10` are there, as in a cluster.
    let ok = r(deployment("nginx:1.27"), None);
    assert!(ok.allowed, "{ok:#?}");
    assert_eq!(ok.evaluations.len(), 1, "{ok:#?}");
    let denied = r(deployment("nginx:latest"), Some(deployment("nginx:1.27")));
    assert!(!denied.allowed, "{denied:#?}");
    assert_eq!(denied.decisions[0].message, "images are pinned");
}

#[test]
fn a_policy_on_deployments_does_not_match_a_pod_and_a_pod_policy_not_a_deployment() {
    let on_pod = vap_evaluate(&VapRequest {
        policies: vec![TEMPLATE_POLICY.to_owned()],
        object: Some(POD.to_owned()),
        ..VapRequest::default()
    })
    .unwrap();
    assert!(on_pod.allowed && on_pod.decisions.is_empty(), "{on_pod:#?}");
    assert!(
        on_pod.evaluations[0].detail.contains("matches CREATE pods"),
        "{on_pod:#?}"
    );
    let pod_policy = vap_evaluate(&VapRequest {
        policies: vec![POD_INTENT.to_owned()],
        object: Some(deployment("nginx")),
        ..VapRequest::default()
    })
    .unwrap();
    assert!(pod_policy.decisions.is_empty(), "{pod_policy:#?}");
    assert!(
        pod_policy
            .evaluations
            .iter()
            .all(|e| e.detail.contains("deployments")),
        "{pod_policy:#?}"
    );
}

#[test]
fn a_deployment_review_names_its_resource_and_a_wrong_subresource_is_refused() {
    let e = vap_evaluate(&VapRequest {
        policies: vec![TEMPLATE_POLICY.to_owned()],
        object: Some(deployment("nginx")),
        subresource: "resize".to_owned(),
        ..VapRequest::default()
    })
    .unwrap_err();
    assert!(e.to_string().contains("Deployment has no \"resize\""), "{e}");
}
