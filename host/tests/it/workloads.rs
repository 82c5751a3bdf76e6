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
    let dir = tempdir();
    let old_text = DEPLOYMENT.replace("namespace: default}", "namespace: default, resourceVersion: '7'}");
    let old = write(dir.path(), "old.yaml", &old_text);
    let new = write(dir.path(), "new.yaml", &old_text.replace("app: web", "app: api"));
    let o = run(&[
        "check",
        "--old",
        old.to_str().unwrap(),
        "--new",
        new.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    assert_eq!(v["errors"][0]["field"], "spec.selector");
    assert_eq!(v["errors"][0]["origin"], "workload/immutable-selector");
}
