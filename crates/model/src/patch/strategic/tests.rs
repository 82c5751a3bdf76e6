use serde::Deserialize;
use serde_json::{Value, json};

use super::super::schema::{Field, MERGE_SET, POD, Schema, merge_on, nested};
use super::{StrategicError, apply};

/// upstream's test struct `mergeItem` (patch_test.go).
static MERGE_ITEM: Schema = Schema {
    name: "mergeItem",
    fields: &[
        ("mergingList", merge_on("name", &MERGE_ITEM)),
        ("mergingIntList", MERGE_SET),
        ("mergeItemPtr", merge_on("name", &MERGE_ITEM)),
        ("retainKeysMap", nested(&RETAIN_KEYS_STRUCT)),
        ("retainKeysMergingList", merge_on("name", &MERGE_ITEM)),
    ],
};

/// upstream's `retainKeysStruct`.
static RETAIN_KEYS_STRUCT: Schema = Schema {
    name: "retainKeysStruct",
    fields: &[
        ("mergingList", merge_on("name", &MERGE_ITEM)),
        ("mergingIntList", MERGE_SET),
    ],
};

#[derive(Debug, Deserialize)]
struct Case {
    description: String,
    original: Value,
    patch: Value,
    result: Value,
}

fn run(original: Value, patch: Value, schema: &Schema) -> Result<Value, StrategicError> {
    let (Value::Object(o), Value::Object(p)) = (original, patch) else {
        panic!("cases are objects");
    };
    apply(o, p, schema).map(Value::Object)
}

#[test]
fn upstream_apply_cases() {
    let cases: Vec<Case> = serde_yaml_ng::from_str(include_str!("upstream.yaml")).unwrap();
    assert!(cases.len() > 30, "{} cases", cases.len());
    let mut failures = Vec::new();
    for c in cases {
        match run(c.original, c.patch, &MERGE_ITEM) {
            Ok(got) if got == c.result => {}
            Ok(got) => failures.push(format!("{}:\n  want {}\n  got  {got}", c.description, c.result)),
            Err(e) => failures.push(format!("{}: error {e}", c.description)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn pod() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web", "labels": {"app": "web", "tier": "front"}, "finalizers": ["a", "b"]},
        "spec": {
            "containers": [{
                "name": "nginx", "image": "nginx:1.25",
                "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                "securityContext": {"runAsUser": 1000}
            }],
            "tolerations": [{"key": "a", "operator": "Exists"}],
            "volumes": [{"name": "data", "emptyDir": {}}]
        }
    })
}

fn patched(patch: Value) -> Value {
    run(pod(), patch, &POD).unwrap()
}

#[test]
fn a_new_container_goes_first_like_kubectl_patch_shows() {
    let out = patched(json!({"spec": {"containers": [{"name": "worker", "image": "busybox"}]}}));
    let names: Vec<&str> = out["spec"]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["worker", "nginx"]);
    assert_eq!(out["spec"]["containers"][1]["image"], "nginx:1.25");
}

#[test]
fn containers_merge_by_name_and_keep_their_other_fields() {
    let out = patched(json!({"spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}));
    let c = &out["spec"]["containers"][0];
    assert_eq!(c["image"], "nginx:1.27");
    assert_eq!(c["env"].as_array().unwrap().len(), 2);
    assert_eq!(c["securityContext"]["runAsUser"], 1000);
}

#[test]
fn nested_lists_merge_by_their_keys() {
    let out = patched(json!({"spec": {"containers": [{
        "name": "nginx",
        "env": [{"name": "B", "value": "two"}, {"name": "C", "value": "3"}],
        "ports": [{"containerPort": 443, "protocol": "TCP"}],
        "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": true}]
    }]}}));
    let c = &out["spec"]["containers"][0];
    assert_eq!(
        c["env"],
        json!([{"name": "A", "value": "1"}, {"name": "B", "value": "two"}, {"name": "C", "value": "3"}])
    );
    assert_eq!(c["ports"].as_array().unwrap().len(), 2);
    assert_eq!(
        c["volumeMounts"],
        json!([{"name": "data", "mountPath": "/data", "readOnly": true}])
    );
}

#[test]
fn untagged_lists_are_replaced() {
    let out = patched(json!({"spec": {"tolerations": [{"key": "b", "operator": "Exists"}]}}));
    assert_eq!(
        out["spec"]["tolerations"],
        json!([{"key": "b", "operator": "Exists"}])
    );
}

#[test]
fn directives_delete_and_replace() {
    let out = patched(json!({"spec": {"containers": [{"name": "nginx", "$patch": "delete"}]}}));
    assert_eq!(out["spec"]["containers"], json!([]));
    let out = patched(
        json!({"spec": {"containers": [{"name": "nginx", "env": [{"$patch": "replace"}, {"name": "Z", "value": "9"}]}]}}),
    );
    assert_eq!(
        out["spec"]["containers"][0]["env"],
        json!([{"name": "Z", "value": "9"}])
    );
    let out = patched(
        json!({"spec": {"containers": [{"name": "nginx", "securityContext": {"$patch": "delete"}}]}}),
    );
    assert_eq!(out["spec"]["containers"][0]["securityContext"], json!({}));
    let out = patched(
        json!({"spec": {"containers": [{"name": "nginx", "securityContext": {"$patch": "replace", "runAsNonRoot": true}}]}}),
    );
    assert_eq!(
        out["spec"]["containers"][0]["securityContext"],
        json!({"runAsNonRoot": true})
    );
    // A directive on a field the original lacks drops the field, as upstream's removeDirectives does.
    let out = patched(json!({"spec": {"securityContext": {"$patch": "replace", "runAsNonRoot": true}}}));
    assert!(out["spec"].get("securityContext").is_none(), "{out}");
    let out = patched(
        json!({"spec": {"volumes": [{"name": "data", "$retainKeys": ["name", "configMap"], "configMap": {"name": "cm"}}]}}),
    );
    assert_eq!(
        out["spec"]["volumes"],
        json!([{"name": "data", "configMap": {"name": "cm"}}])
    );
}

#[test]
fn maps_and_sets_of_metadata() {
    let out =
        patched(json!({"metadata": {"labels": {"tier": null, "track": "canary"}, "finalizers": ["c"]}}));
    assert_eq!(
        out["metadata"]["labels"],
        json!({"app": "web", "track": "canary"})
    );
    assert_eq!(out["metadata"]["finalizers"], json!(["c", "a", "b"]));
    let out = patched(json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}}));
    assert_eq!(out["metadata"]["finalizers"], json!(["b"]));
}

#[test]
fn errors_use_upstreams_wording() {
    let e = run(pod(), json!({"spec": {"containers": [{"image": "x"}]}}), &POD).unwrap_err();
    assert_eq!(e.0, "map: map[image:x] does not contain declared merge key: name");
    let e = run(
        pod(),
        json!({"spec": {"containers": [{"name": "nginx", "$patch": "merge"}]}}),
        &POD,
    )
    .unwrap_err();
    assert_eq!(e.0, "merging lists cannot yet be specified in the patch");
    let e = run(pod(), json!({"spec": {"$patch": "bogus"}}), &POD).unwrap_err();
    assert_eq!(e.0, "unknown patch type: bogus in map: map[$patch:bogus]");
    let e = run(
        pod(),
        json!({"spec": {"volumes": [{"name": "data", "$retainKeys": ["name"], "hostPath": {"path": "/"}}]}}),
        &POD,
    )
    .unwrap_err();
    assert_eq!(e.0, "invalid patch format of retainKeys");
    let e = run(
        pod(),
        json!({"spec": {"$setElementOrder/containers": [{"name": "b"}], "containers": [{"name": "a"}]}}),
        &POD,
    )
    .unwrap_err();
    assert!(e.0.starts_with("the order in patch list:"), "{e}");
}

#[test]
fn a_field_unknown_to_the_schema_merges_like_an_untagged_one() {
    let field: Field = POD.field("spec").schema.field("nope");
    assert_eq!(field.merge_key, None);
    let out = patched(json!({"spec": {"nodeSelector": {"disk": "ssd"}}}));
    assert_eq!(out["spec"]["nodeSelector"], json!({"disk": "ssd"}));
}
