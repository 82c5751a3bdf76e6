//! `podmut check` of workload manifests (Deployment, Job, ...) through the component.

use crate::support::{json_of, run, stderr, tempdir, write};

const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: app, image: 'nginx:1.27'}]\n";

#[test]
fn a_valid_deployment_is_allowed() {
    let dir = tempdir();
    let new = write(dir.path(), "deploy.yaml", DEPLOYMENT);
    let o = run(&["check", "--new", new.to_str().unwrap(), "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    assert_eq!(v["allowed"], true);
    assert_eq!(v["errors"], serde_json::json!([]));
}

#[test]
fn a_deployment_with_a_bad_template_is_denied_at_the_template_paths() {
    let dir = tempdir();
    let bad = DEPLOYMENT
        .replace("image: 'nginx:1.27'", "image: ''")
        .replace("{labels: {app: web}}", "{labels: {app: other}}");
    let new = write(dir.path(), "deploy.yaml", &bad);
    let o = run(&["check", "--new", new.to_str().unwrap(), "-o", "json"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    assert_eq!(v["allowed"], false);
    let fields: Vec<&str> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        [
            "spec.template.metadata.labels",
            "spec.template.spec.containers[0].image"
        ]
    );
    assert_eq!(v["errors"][1]["type"], "FieldValueRequired");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with("Deployment.apps \"web\" is invalid: "),
        "{v}"
    );
}

#[test]
fn a_deployment_update_that_changes_the_selector_is_denied() {
    let old_text = DEPLOYMENT.replace("namespace: default}", "namespace: default, resourceVersion: '7'}");
    let o = pair(
        "check",
        &old_text,
        &old_text.replace("app: web", "app: api"),
        "json",
    );
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    assert_eq!(v["errors"][0]["field"], "spec.selector");
    assert_eq!(v["errors"][0]["origin"], "workload/immutable-selector");
}

#[test]
fn a_deployment_image_update_reports_a_rollout_a_running_pod_would_take_in_place() {
    let new = DEPLOYMENT.replace("nginx:1.27", "nginx:1.28");
    let o = check_pair(DEPLOYMENT, &new, "json");
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    assert_eq!(v["allowed"], true);
    let r = &v["rollout"];
    assert_eq!(r["effect"], "rollout", "{v}");
    assert_eq!(
        r["templateChanges"],
        serde_json::json!(["spec.containers[0].image"])
    );
    assert_eq!(r["otherChanges"], serde_json::json!([]));
    assert_eq!(r["inPlace"]["paths"], serde_json::json!(["pods"]));
    assert!(r["summary"].as_str().unwrap().contains("maxSurge 25%"), "{r}");
}

/// `podmut <command> --old OLD --new NEW -o <output>` on two texts.
fn pair(command: &str, old: &str, new: &str, output: &str) -> std::process::Output {
    let dir = tempdir();
    let old = write(dir.path(), "old.yaml", old);
    let new = write(dir.path(), "new.yaml", new);
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    run(&[command, "--old", old, "--new", new, "-o", output])
}

fn check_pair(old: &str, new: &str, output: &str) -> std::process::Output {
    pair("check", old, new, output)
}

#[test]
fn a_scale_and_an_on_delete_stateful_set_say_what_running_pods_see() {
    let scaled = DEPLOYMENT.replace("replicas: 2", "replicas: 5");
    let o = check_pair(DEPLOYMENT, &scaled, "text");
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("unchanged: the template is unchanged"), "{text}");
    assert!(text.contains("other changes: spec.replicas"), "{text}");
    let sts = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: default}\nspec:\n  serviceName: db\n  updateStrategy: {type: OnDelete}\n  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec:\n      containers: [{name: db, image: 'postgres:16', resources: {requests: {cpu: '1'}}}]\n";
    let o = check_pair(sts, &sts.replace("cpu: '1'", "cpu: '2'"), "json");
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    assert_eq!(v["rollout"]["effect"], "on-delete", "{v}");
    assert_eq!(
        v["rollout"]["inPlace"]["paths"],
        serde_json::json!(["pods/resize"]),
        "{v}"
    );
}

#[test]
fn a_denied_update_has_no_rollout_and_a_pod_update_none_either() {
    let o = check_pair(DEPLOYMENT, &DEPLOYMENT.replace("app: web", "app: api"), "json");
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    assert!(json_of(&o).get("rollout").is_none());
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {containers: [{name: a, image: 'nginx:1'}]}\n";
    let o = check_pair(pod, &pod.replace("nginx:1", "nginx:2"), "json");
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert!(json_of(&o).get("rollout").is_none());
}

#[test]
fn qos_of_a_cron_job_is_its_templates_class() {
    let dir = tempdir();
    let cron = "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\nspec:\n  schedule: '0 3 * * *'\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: OnFailure\n          containers: [{name: c, image: busybox, resources: {limits: {cpu: 500m, memory: 128Mi}}}]\n";
    let f = write(dir.path(), "cron.yaml", cron);
    let o = run(&["qos", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "Guaranteed");
}

#[test]
fn plan_of_a_deployment_update_has_the_verdict_the_classes_and_the_rollout() {
    let new = DEPLOYMENT.replace(
        "[{name: app, image: 'nginx:1.27'}]",
        "[{name: app, image: 'nginx:1.27', resources: {requests: {cpu: 100m}}}]",
    );
    let o = pair("plan", DEPLOYMENT, &new, "json");
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    assert_eq!(v["admission"]["allowed"], true, "{v}");
    assert_eq!(v["qos"]["before"], "BestEffort");
    assert_eq!(v["qos"]["after"], "Burstable");
    assert!(
        v["allocation"]["skipped"].as_str().unwrap().contains("rollout"),
        "{v}"
    );
    assert_eq!(v["rollout"]["effect"], "rollout");
    // A resize may not change the QoS class (BestEffort to Burstable): only new Pods get it.
    assert_eq!(v["rollout"]["inPlace"]["paths"], serde_json::json!([]), "{v}");
    let refused = v["rollout"]["inPlace"]["refused"].as_str().unwrap();
    assert!(
        refused.contains("through pods/resize: ") && refused.contains("QOS Class may not change"),
        "{refused}"
    );
}

#[test]
fn a_policy_on_deployments_is_evaluated_on_a_deployment() {
    let dir = tempdir();
    let policy = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: replicas}\nspec:\n  failurePolicy: Fail\n  matchConstraints:\n    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]\n  validations: [{expression: 'object.spec.replicas <= 3', message: at most three replicas}]\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: replicas}\nspec: {policyName: replicas, validationActions: [Deny]}\n";
    let p = write(dir.path(), "policy.yaml", policy);
    let ok = write(dir.path(), "ok.yaml", DEPLOYMENT);
    let big = write(
        dir.path(),
        "big.yaml",
        &DEPLOYMENT.replace("replicas: 2", "replicas: 9"),
    );
    let o = run(&[
        "vap",
        "--policy",
        p.to_str().unwrap(),
        "--new",
        ok.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let o = run(&[
        "vap",
        "--policy",
        p.to_str().unwrap(),
        "--new",
        big.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    assert_eq!(v["decisions"][0]["message"], "at most three replicas", "{v}");
}

#[test]
fn a_deployment_admission_review_is_answered_as_the_server_answers() {
    let dir = tempdir();
    let review = r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"7",
      "kind":{"group":"apps","version":"v1","kind":"Deployment"},
      "resource":{"group":"apps","version":"v1","resource":"deployments"},
      "name":"web","namespace":"default","operation":"CREATE","userInfo":{},
      "object":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},
        "spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
        "spec":{"containers":[{"name":"app","image":""}]}}}}}}"#;
    let f = write(dir.path(), "review.json", review);
    let o = run(&["review", f.to_str().unwrap()]);
    let v = json_of(&o);
    let r = &v["response"];
    assert_eq!(r["uid"], "7", "{v} {}", stderr(&o));
    assert_eq!(r["allowed"], false, "{v}");
    assert_eq!(r["status"]["details"]["group"], "apps");
    assert_eq!(
        r["status"]["details"]["causes"][0]["field"],
        "spec.template.spec.containers[0].image"
    );
}
