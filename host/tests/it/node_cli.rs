//! The node-side commands (`allocate`, `probes`, `statuses`) through the built `podmut` binary, on
//! the hand-written examples in `policies/examples/node/`.

use std::path::PathBuf;

use serde_json::Value;

use crate::support::{
    assert_contains_all, expect_bad_input, json_of as json, node_example as example, run, stderr, stdout,
};

/// A scratch file under the test's target dir.
fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("node-cli");
    std::fs::create_dir_all(&dir).unwrap();
    crate::support::write(&dir, name, text)
}

#[test]
fn allocate_fitting_change_exits_0_with_the_allocated_pod() {
    let o = run(&["allocate", &example("allocate-add-worker.yaml"), "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["outcome"], "Allocated");
    assert_eq!(v["resizePending"], Value::Null);
    assert_eq!(v["changes"][0]["kind"], "update-image");
    assert_eq!(v["changes"][1]["kind"], "add-container");
    assert_eq!(v["changes"][1]["container"], "worker");
    let images: Vec<&str> = v["allocatedPod"]["spec"]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["image"].as_str().unwrap())
        .collect();
    assert_eq!(images, vec!["nginx:1.27", "example.com/worker:2.1"]);
}

#[test]
fn allocate_deferred_exits_1_and_keeps_the_old_allocation() {
    let o = run(&["allocate", &example("allocate-deferred.yaml"), "-o", "json"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["outcome"], "Deferred");
    assert_eq!(v["reason"], "Deferred");
    let message = "Node didn't have enough resource: cpu, requested: 2000, used: 2500, capacity: 4000";
    assert_eq!(v["message"], message);
    assert_eq!(v["resizePending"]["type"], "PodResizePending");
    assert_eq!(v["resizePending"]["reason"], "Deferred");
    assert_eq!(v["resizePending"]["message"], message);
    assert_eq!(v["resizePending"]["observedGeneration"], 5);
    let containers = v["allocatedPod"]["spec"]["containers"].as_array().unwrap();
    assert_eq!(containers.len(), 1, "the added worker is not allocated");
    assert_eq!(containers[0]["image"], "nginx:1.25", "the image update waits too");
}

#[test]
fn allocate_from_separate_files_matches_the_request_document() {
    let o = run(&[
        "allocate",
        "--node",
        &example("node.yaml"),
        "--pods",
        &example("pods-on-node.yaml"),
        "--allocated",
        &example("web-allocated.yaml"),
        "--desired",
        &example("web-desired.yaml"),
        "--kubernetes-version",
        "preview",
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let from_files = json(&o);
    let doc = json(&run(&[
        "allocate",
        &example("allocate-deferred.yaml"),
        "-o",
        "json",
    ]));
    assert_eq!(from_files, doc);
}

#[test]
fn allocate_text_output_explains_the_outcome() {
    let o = run(&["allocate", &example("allocate-deferred.yaml")]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(
        text.starts_with("Deferred: Node didn't have enough resource: cpu, requested: 2000"),
        "{text}"
    );
    assert_contains_all(
        &text,
        &[
            "condition PodResizePending=True reason=Deferred observedGeneration=5",
            "changes (not actuated):",
            "add-container worker: example.com/worker:2.1",
            "allocated containers: nginx (nginx:1.25)",
            "Unallocated",
        ],
    );
    let y = run(&["allocate", &example("allocate-deferred.yaml"), "-o", "yaml"]);
    let v: Value = serde_yaml_ng::from_slice(&y.stdout).unwrap();
    assert_eq!(v["outcome"], "Deferred");
}

#[test]
fn allocate_retry_order() {
    let o = run(&[
        "allocate",
        "--retry-order",
        &example("retry-pending.yaml"),
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json(&o);
    let order: Vec<&str> = v["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["pod"].as_str().unwrap())
        .collect();
    assert_eq!(order, vec!["shop/web", "shop/batch", "shop/api"]);
    assert_eq!(v["order"][0]["increasingRequests"], false);
    assert_eq!(v["order"][1]["priority"], 1000);
    assert_eq!(v["order"][2]["pendingSince"], "2025-03-01T10:00:00Z");
    let text = stdout(&run(&[
        "allocate",
        "--retry-order",
        &example("retry-pending.yaml"),
    ]));
    assert!(text.starts_with("1. shop/web"), "{text}");
}

#[test]
fn allocate_bad_input_exits_2_naming_file_and_field() {
    let no_alloc = scratch(
        "node-no-allocatable.yaml",
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n",
    );
    let o = run(&[
        "allocate",
        "--node",
        no_alloc.to_str().unwrap(),
        "--allocated",
        &example("web-allocated.yaml"),
        "--desired",
        &example("web-desired.yaml"),
    ]);
    expect_bad_input(&o, "node-no-allocatable.yaml: status.allocatable: required");

    let bad = std::fs::read_to_string(example("web-desired.yaml"))
        .unwrap()
        .replace("cpu: \"1\", memory: 256Mi", "cpu: \"1.5.5\", memory: 256Mi");
    let bad = scratch("bad-quantity.yaml", &bad);
    let o = run(&[
        "allocate",
        "--node",
        &example("node.yaml"),
        "--allocated",
        &example("web-allocated.yaml"),
        "--desired",
        bad.to_str().unwrap(),
    ]);
    expect_bad_input(
        &o,
        "bad-quantity.yaml: spec.containers[1].resources.requests[cpu]: invalid quantity \"1.5.5\"",
    );

    let request = scratch(
        "request.yaml",
        "node: {kind: Node, status: {allocatable: {cpu: '1'}}}\n",
    );
    let o = run(&["allocate", request.to_str().unwrap()]);
    expect_bad_input(&o, "request.yaml: allocated: required");
}

#[test]
fn probes_plan_for_a_probe_edit() {
    let o = run(&[
        "probes",
        "--old",
        &example("probes-old.yaml"),
        "--new",
        &example("probes-new.yaml"),
        "--kubernetes-version",
        "preview",
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["reconciled"], true);
    let actions = v["actions"].as_array().unwrap();
    let find = |probe: &str| actions.iter().find(|a| a["probe"] == probe).unwrap();
    let startup = find("startup");
    assert_eq!(startup["action"], "remove");
    assert_eq!(startup["startedEffect"], "started");
    assert_eq!(startup["cancelInFlight"], true);
    let readiness = find("readiness");
    assert_eq!(readiness["action"], "add");
    assert_eq!(readiness["initialResult"], "Failure");
    assert_eq!(readiness["readyEffect"], "unready");
    assert_eq!(readiness["event"]["reason"], "ContainerProbeChanged");
    assert_eq!(
        readiness["event"]["message"],
        "Readiness probe of container \"nginx\" added"
    );
    let liveness = find("liveness");
    assert_eq!(liveness["action"], "update");
    assert_eq!(liveness["changedFields"], serde_json::json!(["periodSeconds"]));
    assert_eq!(liveness["resetCounts"], false);
    assert_eq!(liveness["nextRun"], "recalculated");

    let text = stdout(&run(&[
        "probes",
        "--old",
        &example("probes-old.yaml"),
        "--new",
        &example("probes-new.yaml"),
        "--kubernetes-version",
        "preview",
    ]));
    assert!(text.starts_with("reconciled\n"), "{text}");
    assert_contains_all(
        &text,
        &[
            "update containers/nginx liveness: changed=periodSeconds next-run=recalculated",
            "event: Normal ContainerProbeChanged Readiness probe of container \"nginx\" added",
        ],
    );
}

#[test]
fn probes_settings_and_bad_input() {
    let settings = scratch(
        "probes-off.yaml",
        "featureGates: {MutableContainerProbes: false}\n",
    );
    let o = run(&[
        "probes",
        "--old",
        &example("probes-old.yaml"),
        "--new",
        &example("probes-new.yaml"),
        "--settings",
        settings.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(json(&o)["reconciled"], false);

    let bad = scratch("not-a-pod.yaml", "apiVersion: apps/v1\nkind: Deployment\n");
    let o = run(&[
        "probes",
        "--old",
        bad.to_str().unwrap(),
        "--new",
        &example("probes-new.yaml"),
    ]);
    expect_bad_input(&o, "not-a-pod.yaml: expected kind Pod");
}

#[test]
fn statuses_unallocated_and_removed() {
    let o = run(&["statuses", &example("statuses.yaml"), "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(
        v["ready"], true,
        "Unallocated containers do not count for readiness"
    );
    assert_eq!(v["unallocated"], serde_json::json!(["worker"]));
    assert_eq!(v["removed"], serde_json::json!(["migrate"]));
    let names: Vec<&str> = v["containerStatuses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["migrate", "nginx", "worker"]);
    assert_eq!(
        v["containerStatuses"][2]["state"]["waiting"]["reason"],
        "Unallocated"
    );
    assert_eq!(v["conditions"][1]["type"], "Ready");
    assert_eq!(v["conditions"][1]["observedGeneration"], 5);

    let text = stdout(&run(&["statuses", &example("statuses.yaml")]));
    assert!(text.starts_with("ready\n"), "{text}");
    assert_contains_all(
        &text,
        &["  worker: waiting Unallocated ready=false", "  removed: migrate"],
    );
}

#[test]
fn statuses_from_files_and_bad_input() {
    let pod = scratch(
        "pod-no-status.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: x}]}\n",
    );
    let o = run(&["statuses", "--pod", pod.to_str().unwrap()]);
    expect_bad_input(&o, "pod-no-status.yaml: status: required");

    let pod = scratch(
        "pod-waiting.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: x}]}\nstatus: {phase: Running}\n",
    );
    let o = run(&["statuses", "--pod", pod.to_str().unwrap(), "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["ready"], false);
    assert_eq!(
        v["conditions"][0]["message"],
        "containers with unready status: [a]"
    );
}
