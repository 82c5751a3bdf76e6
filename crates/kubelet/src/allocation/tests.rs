use super::*;

const NODE: &str = "node: {kind: Node, apiVersion: v1, metadata: {name: n1}, status: {allocatable: {cpu: '4', memory: 4Gi, pods: '40'}}}";

fn pod(name: &str, containers: &str) -> String {
    format!(
        "{{kind: Pod, apiVersion: v1, metadata: {{name: {name}, namespace: ns, uid: {name}, generation: 2}}, spec: {{containers: {containers}}}}}"
    )
}

/// A request; without `settings` in `extra`, the `preview` profile (the KEP-5972 allocation).
fn req(extra: &str, allocated: &str, desired: &str) -> String {
    let extra = if extra.contains("settings:") {
        extra.to_owned()
    } else {
        format!("{extra}\nsettings: {{kubernetesVersion: preview}}")
    };
    format!("{NODE}\n{extra}\nallocated: {allocated}\ndesired: {desired}\n")
}

fn decide(text: &str) -> AllocationDecision {
    allocate_document(text).unwrap()
}

fn images(p: &Pod) -> Vec<(String, String)> {
    p.spec
        .as_ref()
        .unwrap()
        .containers
        .iter()
        .map(|c| (c.name.clone(), c.image.clone().unwrap_or_default()))
        .collect()
}

const APP_1: &str = "[{name: app, image: 'nginx:1', resources: {requests: {cpu: '1', memory: 1Gi}}}]";

#[test]
fn unchanged_spec_is_allocated_without_changes() {
    let d = decide(&req("", &pod("p", APP_1), &pod("p", APP_1)));
    assert_eq!(d.outcome, Outcome::Allocated);
    assert!(d.changes.is_empty() && d.resize_pending.is_none());
}

#[test]
fn a_fitting_resize_with_add_and_image_is_allocated_atomically() {
    let desired = pod(
        "p",
        "[{name: app, image: 'nginx:2', resources: {requests: {cpu: '2', memory: 1Gi}}}, {name: worker, image: w, resources: {requests: {cpu: 500m}}}]",
    );
    let d = decide(&req("", &pod("p", APP_1), &desired));
    assert_eq!(d.outcome, Outcome::Allocated, "{d:?}");
    assert_eq!(d.changes.len(), 3);
    assert_eq!(
        images(&d.allocated_pod),
        vec![("app".into(), "nginx:2".into()), ("worker".into(), "w".into())]
    );
}

#[test]
fn beyond_allocatable_is_infeasible_with_upstream_message() {
    // Upstream TestRetryPendingResizes: node allocatable 4 cpu / 4Gi; memory 4500Mi requested.
    let desired = pod(
        "p",
        "[{name: app, image: 'nginx:1', resources: {requests: {cpu: '1', memory: 4500Mi}}}]",
    );
    let d = decide(&req("", &pod("p", APP_1), &desired));
    assert_eq!(d.outcome, Outcome::Infeasible);
    assert_eq!(d.reason, "Infeasible");
    assert_eq!(
        d.message,
        "Node didn't have enough capacity: memory, requested: 4718592000, capacity: 4294967296"
    );
    let c = d.resize_pending.unwrap();
    assert_eq!(
        (c.type_.as_str(), c.status.as_str(), c.observed_generation),
        ("PodResizePending", "True", Some(2))
    );
    let desired = pod(
        "p",
        "[{name: app, image: 'nginx:1', resources: {requests: {cpu: '5', memory: 1Gi}}}]",
    );
    assert_eq!(
        decide(&req("", &pod("p", APP_1), &desired)).message,
        "Node didn't have enough capacity: cpu, requested: 5000, capacity: 4000"
    );
}

#[test]
fn deferred_keeps_old_images_and_omits_added_containers() {
    let others = format!(
        "allocatedPods: [{}]",
        pod(
            "other",
            "[{name: o, image: o, resources: {requests: {cpu: '2'}}}]"
        )
    );
    let desired = pod(
        "p",
        "[{name: app, image: 'nginx:2', resources: {requests: {cpu: '2500m', memory: 1Gi}}}, {name: worker, image: w}]",
    );
    let d = decide(&req(&others, &pod("p", APP_1), &desired));
    assert_eq!(d.outcome, Outcome::Deferred, "{d:?}");
    assert_eq!(
        d.message,
        "Node didn't have enough resource: cpu, requested: 2500, used: 2000, capacity: 4000"
    );
    assert_eq!(images(&d.allocated_pod), vec![("app".into(), "nginx:1".into())]);
    assert!(!d.actuated());
    assert!(d.notes.iter().any(|n| n.contains("Unallocated")));
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("image update of container app"))
    );
}

#[test]
fn removed_containers_stay_in_the_allocation_when_deferred() {
    let others = format!(
        "allocatedPods: [{}]",
        pod(
            "other",
            "[{name: o, image: o, resources: {requests: {cpu: '3500m'}}}]"
        )
    );
    let allocated = pod(
        "p",
        "[{name: app, image: a, resources: {requests: {cpu: 100m}}}, {name: old, image: o}]",
    );
    let desired = pod("p", "[{name: app, image: a, resources: {requests: {cpu: '1'}}}]");
    let d = decide(&req(&others, &allocated, &desired));
    assert_eq!(d.outcome, Outcome::Deferred);
    assert_eq!(images(&d.allocated_pod).len(), 2);
}

#[test]
fn pod_count_is_checked_first() {
    let node = "node: {kind: Node, status: {allocatable: {cpu: '4', memory: 4Gi, pods: '1'}}}";
    let text = format!(
        "{node}\nallocatedPods: [{}]\nallocated: {}\ndesired: {}\n",
        pod("other", "[{name: o, image: o}]"),
        pod("p", APP_1),
        pod(
            "p",
            "[{name: app, image: 'nginx:1', resources: {requests: {cpu: '2', memory: 1Gi}}}]"
        )
    );
    assert_eq!(
        decide(&text).message,
        "Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1"
    );
}

#[test]
fn infeasible_rules_in_order() {
    let resized = pod(
        "p",
        "[{name: app, image: 'nginx:1', resources: {requests: {cpu: '2', memory: 1Gi}}}]",
    );
    let static_pod = resized.replace(
        "uid: p,",
        "uid: p, annotations: {kubernetes.io/config.source: file},",
    );
    assert_eq!(
        decide(&req("", &pod("p", APP_1), &static_pod)).message,
        "In-place resize of static-pods is not supported"
    );
    let windows = format!(
        "node: {{kind: Node, status: {{allocatable: {{cpu: '4', memory: 4Gi}}, nodeInfo: {{operatingSystem: windows, architecture: '', bootID: '', containerRuntimeVersion: '', kernelVersion: '', kubeProxyVersion: '', kubeletVersion: '', machineID: '', osImage: '', systemUUID: ''}}}}}}\nallocated: {}\ndesired: {resized}\n",
        pod("p", APP_1)
    );
    assert_eq!(
        decide(&windows).message,
        "In-place pod resize is not supported on Windows"
    );
}

#[test]
fn static_managers_block_guaranteed_resizes() {
    let g = |cpu: &str, mem: &str| {
        pod(
            "p",
            &format!(
                "[{{name: app, image: x, resources: {{requests: {{cpu: '{cpu}', memory: {mem}}}, limits: {{cpu: '{cpu}', memory: {mem}}}}}}}]"
            ),
        )
    };
    let cfg = "nodeConfig: {cpuManagerPolicy: static, memoryManagerPolicy: Static}";
    let d = decide(&req(cfg, &g("1", "1Gi"), &g("2", "1Gi")));
    assert_eq!(
        d.message,
        "Resize is infeasible for Guaranteed Pods alongside CPU Manager policy \"static\""
    );
    let d = decide(&req(cfg, &g("1", "1Gi"), &g("1", "2Gi")));
    assert_eq!(
        d.message,
        "Resize is infeasible for Guaranteed Pods alongside Memory Manager policy \"Static\""
    );
    let open = "nodeConfig: {cpuManagerPolicy: static}\nsettings: {featureGates: {InPlacePodVerticalScalingExclusiveCPUs: true}}";
    assert_eq!(
        decide(&req(open, &g("1", "1Gi"), &g("2", "1Gi"))).outcome,
        Outcome::Allocated
    );
}

#[test]
fn swap_blocks_memory_request_changes_of_burstable_pods() {
    let b = |mem: &str| {
        pod(
            "p",
            &format!(
                "[{{name: app, image: x, resources: {{requests: {{memory: {mem}}}, limits: {{memory: 2Gi}}}}}}]"
            ),
        )
    };
    let d = decide(&req(
        "nodeConfig: {swapBehavior: LimitedSwap}",
        &b("1Gi"),
        &b("1536Mi"),
    ));
    assert_eq!(
        d.message,
        "In-place resize of containers with swap is not supported."
    );
    assert_eq!(
        decide(&req("", &b("1Gi"), &b("1536Mi"))).outcome,
        Outcome::Allocated
    );
}

#[test]
fn pod_level_resize_needs_its_gate() {
    let p = |cpu: &str| {
        format!(
            "{{kind: Pod, metadata: {{name: p}}, spec: {{resources: {{requests: {{cpu: '{cpu}'}}}}, containers: [{{name: app, image: x}}]}}}}"
        )
    };
    let off = "settings: {kubernetesVersion: '1.35'}";
    let d = decide(&req(off, &p("1"), &p("2")));
    assert_eq!(d.message, "InPlacePodLevelResourcesVerticalScaling is disabled");
    let on = "settings: {}";
    assert_eq!(decide(&req(on, &p("1"), &p("2"))).outcome, Outcome::Allocated);
}

#[test]
fn terminating_pods_are_halted() {
    let desired = pod("p", "[{name: app, image: 'nginx:2'}]").replace(
        "generation: 2",
        "generation: 2, deletionTimestamp: '2024-01-01T00:00:00Z'",
    );
    let d = decide(&req("", &pod("p", "[{name: app, image: 'nginx:1'}]"), &desired));
    assert_eq!(d.outcome, Outcome::Halted);
    assert!(d.resize_pending.is_none());
    assert_eq!(images(&d.allocated_pod), vec![("app".into(), "nginx:1".into())]);
}

#[test]
fn without_dynamic_containers_images_are_not_gated() {
    let off = "settings: {}";
    let d = decide(&req(
        off,
        &pod("p", "[{name: app, image: 'nginx:1'}]"),
        &pod("p", "[{name: app, image: 'nginx:2'}]"),
    ));
    assert_eq!(d.outcome, Outcome::Allocated);
    let d = decide(&req(
        off,
        &pod("p", "[{name: app, image: a}]"),
        &pod("p", "[{name: app, image: a}, {name: b, image: b}]"),
    ));
    assert_eq!(
        (d.outcome, d.message.as_str()),
        (Outcome::Infeasible, "DynamicContainers is disabled")
    );
}

#[test]
fn bad_input_names_the_field() {
    let e = allocate_document(&format!(
        "node: {{kind: Node}}\nallocated: {}\ndesired: {}\n",
        pod("p", APP_1),
        pod("p", APP_1)
    ))
    .unwrap_err();
    assert!(
        e.message().starts_with("node: status.allocatable: required"),
        "{e}"
    );
    let e = allocate_document(&req(
        "",
        &pod("p", APP_1),
        &pod("p", "[{name: app, resources: {requests: {cpu: 1.5.5}}}]"),
    ))
    .unwrap_err();
    assert!(
        e.message()
            .starts_with("desired: spec.containers[0].resources.requests[cpu]: invalid quantity \"1.5.5\""),
        "{e}"
    );
    let e = allocate_document(&format!("{NODE}\nallocated: {}\n", pod("p", APP_1))).unwrap_err();
    assert!(e.message().starts_with("desired: required"), "{e}");
    let e = allocate_document(&req(
        "nodeConfig: {cpuManagerPolicy: Static}",
        &pod("p", APP_1),
        &pod("p", APP_1),
    ))
    .unwrap_err();
    assert!(
        e.message()
            .contains("cpuManagerPolicy: unsupported value \"Static\""),
        "{e}"
    );
    let e = allocate_document(&req("bogus: 1", &pod("p", APP_1), &pod("p", APP_1))).unwrap_err();
    assert!(e.message().contains("unknown field \"bogus\""), "{e}");
    let e = allocate_document(&req("", &pod("p", APP_1), "{kind: Deployment}")).unwrap_err();
    assert!(matches!(e, InputError::WrongKind { .. }), "{e}");
}

#[test]
fn retry_order_follows_sort_pending_resizes() {
    // Upstream TestSortPendingResizes, reduced: non-increasing first, then priority, then
    // Guaranteed, then the oldest pending condition, then no condition.
    let item = |name: &str, cpu: &str, extra: &str, status: &str| {
        format!(
            "{{desired: {{kind: Pod, metadata: {{name: {name}}}, spec: {{{extra}containers: [{{name: c, image: i, resources: {{requests: {{cpu: '{cpu}', memory: 1Gi}}}}}}]}}, status: {{{status}}}}}, allocated: {{kind: Pod, metadata: {{name: {name}}}, spec: {{containers: [{{name: c, image: i, resources: {{requests: {{cpu: '1', memory: 1Gi}}}}}}]}}}}}}"
        )
    };
    let cond = |t: &str| {
        format!(
            "conditions: [{{type: PodResizePending, status: 'True', reason: Deferred, lastTransitionTime: '{t}'}}]"
        )
    };
    let items = [
        item("newest", "1500m", "", ""),
        item("later", "1500m", "", &cond("2024-01-01T00:00:05Z")),
        item("earlier", "1500m", "", &cond("2024-01-01T00:00:01Z")),
        item("guaranteed", "1500m", "", "qosClass: Guaranteed"),
        item("priority", "1500m", "priority: 100, ", ""),
        item("shrinks", "500m", "", ""),
        item(
            "infeasible",
            "1500m",
            "",
            "conditions: [{type: PodResizePending, status: 'True', reason: Infeasible}]",
        ),
    ];
    let plan = retry_order_document(&format!("pending: [{}]", items.join(", "))).unwrap();
    let order: Vec<&str> = plan.order.iter().map(|e| e.pod.as_str()).collect();
    assert_eq!(
        order,
        vec!["shrinks", "priority", "guaranteed", "earlier", "later", "newest"]
    );
    assert_eq!(plan.dropped, vec!["infeasible"]);
}
