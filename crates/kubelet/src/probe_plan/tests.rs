use super::*;

fn pod(containers: &str, extra: &str) -> Pod {
    let mut p = document::parse_pod(
        &format!("metadata: {{name: p}}\nspec:\n  containers: {containers}\n{extra}"),
        "p",
        1 << 20,
    )
    .unwrap();
    apply_pod_defaults(&mut p, &Settings::preview());
    p
}

fn plan(old: &str, new: &str) -> ProbeReconciliation {
    reconcile(&pod(old, ""), &pod(new, ""), &Settings::preview())
}

fn only(p: &ProbeReconciliation) -> &ProbeAction {
    assert_eq!(p.actions.len(), 1, "{:#?}", p.actions);
    &p.actions[0]
}

const HTTP: &str = "httpGet: {path: /ready, port: 8080}";

#[test]
fn added_readiness_starts_at_failure_and_emits_the_event() {
    let p = plan(
        "[{name: app, image: x}]",
        &format!("[{{name: app, image: x, readinessProbe: {{{HTTP}}}}}]"),
    );
    let a = only(&p);
    assert!(p.reconciled);
    assert_eq!(a.action, Action::Add);
    assert_eq!(a.initial_result.as_deref(), Some("Failure"));
    assert_eq!(a.ready_effect, "unready");
    assert!(a.reset_counts && a.run_promptly && !a.cancel_in_flight);
    assert_eq!(
        a.event.as_deref(),
        Some("Readiness probe of container \"app\" added")
    );
}

#[test]
fn added_liveness_starts_at_success() {
    let p = plan(
        "[{name: app, image: x}]",
        "[{name: app, image: x, livenessProbe: {tcpSocket: {port: 80}}}]",
    );
    let a = only(&p);
    assert_eq!(a.initial_result.as_deref(), Some("Success"));
    assert_eq!(a.ready_effect, "unchanged");
}

#[test]
fn added_startup_never_flips_started_back() {
    let status = "status: {containerStatuses: [{name: app, image: x, imageID: '', ready: true, restartCount: 0, started: true, state: {running: {}}}]}\n";
    let old = pod("[{name: app, image: x}]", status);
    let new = pod(
        "[{name: app, image: x, startupProbe: {exec: {command: ['true']}}}]",
        status,
    );
    let p = reconcile(&old, &new, &Settings::preview());
    let a = only(&p);
    assert_eq!(a.initial_result.as_deref(), Some("Success"));
    assert_eq!(a.started_effect, "unchanged");
    assert!(!a.run_promptly);
    // A container that has not started runs it normally.
    let not_started = status.replace("started: true", "started: false");
    let p = reconcile(
        &pod("[{name: app, image: x}]", &not_started),
        &pod(
            "[{name: app, image: x, startupProbe: {exec: {command: ['true']}}}]",
            &not_started,
        ),
        &Settings::preview(),
    );
    assert_eq!(only(&p).initial_result.as_deref(), Some("Unknown"));
}

#[test]
fn strongest_behaviour_wins() {
    let p = plan(
        &format!("[{{name: app, image: x, readinessProbe: {{{HTTP}, periodSeconds: 10}}}}]"),
        "[{name: app, image: x, readinessProbe: {httpGet: {path: /healthz, port: 8080}, periodSeconds: 30}}]",
    );
    let a = only(&p);
    assert_eq!(a.changed_fields, vec!["httpGet", "periodSeconds"]);
    assert!(a.reset_counts && a.cancel_in_flight && a.run_promptly);
    assert_eq!(a.next_run, "immediately");
}

#[test]
fn period_only_preserves_counts() {
    let p = plan(
        &format!("[{{name: app, image: x, readinessProbe: {{{HTTP}, periodSeconds: 10}}}}]"),
        &format!("[{{name: app, image: x, readinessProbe: {{{HTTP}, periodSeconds: 5}}}}]"),
    );
    let a = only(&p);
    assert_eq!(a.action, Action::Update);
    assert!(!a.reset_counts && !a.cancel_in_flight && !a.run_promptly);
    assert_eq!(a.next_run, "recalculated");
    assert_eq!(a.ready_effect, "unchanged");
}

#[test]
fn thresholds_reset_without_cancelling() {
    let p = plan(
        &format!("[{{name: app, image: x, livenessProbe: {{{HTTP}, failureThreshold: 3}}}}]"),
        &format!("[{{name: app, image: x, livenessProbe: {{{HTTP}, failureThreshold: 10}}}}]"),
    );
    let a = only(&p);
    assert!(a.reset_counts && !a.cancel_in_flight && !a.run_promptly);
}

#[test]
fn defaulted_fields_are_not_changes() {
    let p = plan(
        &format!("[{{name: app, image: x, readinessProbe: {{{HTTP}}}}}]"),
        &format!(
            "[{{name: app, image: x, readinessProbe: {{{HTTP}, periodSeconds: 10, timeoutSeconds: 1}}}}]"
        ),
    );
    assert_eq!(only(&p).action, Action::None);
}

#[test]
fn removing_startup_ungates_and_schedules_readiness() {
    let p = plan(
        &format!("[{{name: app, image: x, startupProbe: {{{HTTP}}}, readinessProbe: {{{HTTP}}}}}]"),
        &format!("[{{name: app, image: x, readinessProbe: {{{HTTP}}}}}]"),
    );
    assert_eq!(p.actions.len(), 2);
    assert_eq!(p.actions[0].action, Action::Remove);
    assert_eq!(p.actions[0].started_effect, "started");
    assert!(p.actions[0].cancel_in_flight);
    assert_eq!(p.actions[1].action, Action::None);
    assert!(p.actions[1].run_promptly);
}

#[test]
fn removing_readiness_makes_ready() {
    let p = plan(
        &format!("[{{name: app, image: x, readinessProbe: {{{HTTP}}}}}]"),
        "[{name: app, image: x}]",
    );
    assert_eq!(only(&p).ready_effect, "ready");
}

#[test]
fn terminating_terminal_and_static_pods_are_not_reconciled() {
    let c = format!("[{{name: app, image: x, readinessProbe: {{{HTTP}}}}}]");
    let changed = "[{name: app, image: x, readinessProbe: {httpGet: {path: /x, port: 1}}}]";
    let new = pod(changed, "status: {phase: Succeeded}\n");
    let p = reconcile(&pod(&c, ""), &new, &Settings::preview());
    assert!(!p.reconciled);
    assert_eq!(only(&p).action, Action::None);
    let mut new = pod(changed, "");
    new.metadata.deletion_timestamp = Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
        "2024-01-01T00:00:00Z".parse().unwrap(),
    ));
    assert!(!reconcile(&pod(&c, ""), &new, &Settings::preview()).reconciled);
    let mut old = pod(&c, "");
    let mut new = pod(changed, "");
    for p in [&mut old, &mut new] {
        p.metadata.annotations = Some([("kubernetes.io/config.mirror".to_owned(), "x".to_owned())].into());
    }
    let p = reconcile(&old, &new, &Settings::preview());
    assert!(!p.reconciled);
    assert_eq!(only(&p).action, Action::None);
}

#[test]
fn gate_off_is_add_only() {
    let mut s = Settings::preview();
    s.feature_gates.set(Gate::MutableContainerProbes, false);
    let p = reconcile(
        &pod(
            &format!("[{{name: app, image: x, livenessProbe: {{{HTTP}}}}}]"),
            "",
        ),
        &pod(
            &format!("[{{name: app, image: x, readinessProbe: {{{HTTP}}}}}]"),
            "",
        ),
        &s,
    );
    assert!(!p.reconciled);
    assert_eq!(p.actions.len(), 2);
    assert_eq!(p.actions[0].action, Action::Add);
    assert!(p.actions[0].event.is_none());
    assert_eq!(p.actions[1].action, Action::None);
}

#[test]
fn restartable_init_included_ordinary_init_excluded() {
    let old = document::parse_pod(
        "spec:\n  initContainers: [{name: side, image: x, restartPolicy: Always}, {name: setup, image: x}]\n  containers: [{name: app, image: x}]\n",
        "p",
        1 << 20,
    )
    .unwrap();
    let new = document::parse_pod(
        &format!(
            "spec:\n  initContainers: [{{name: side, image: x, restartPolicy: Always, livenessProbe: {{{HTTP}}}}}, {{name: setup, image: x}}]\n  containers: [{{name: app, image: x}}]\n"
        ),
        "p",
        1 << 20,
    )
    .unwrap();
    let p = reconcile(&old, &new, &Settings::preview());
    let a = only(&p);
    assert_eq!(a.container_list, "initContainers");
    assert_eq!(a.action, Action::Add);
}

#[test]
fn added_and_removed_containers_start_and_stop() {
    let p = plan(
        &format!("[{{name: app, image: x}}, {{name: old, image: x, livenessProbe: {{{HTTP}}}}}]"),
        &format!("[{{name: app, image: x}}, {{name: new, image: x, readinessProbe: {{{HTTP}}}}}]"),
    );
    assert_eq!(p.actions.len(), 2);
    assert_eq!(p.actions[0].action, Action::Start);
    assert_eq!(p.actions[0].ready_effect, "unready");
    assert!(p.actions[0].event.is_none());
    assert_eq!(p.actions[1].action, Action::Stop);
    assert_eq!(p.actions[1].container, "old");
}

#[test]
fn documents_name_their_input() {
    let e = probe_plan_documents("spec: {containers: [{name: 1}]}", "{}", "").unwrap_err();
    assert_eq!(e.input(), "old-pod");
}

#[test]
fn removing_the_startup_probe_without_a_readiness_probe_makes_the_container_ready() {
    // prober_manager.go UpdatePodStatus: started && running && no readiness worker -> ready.
    let status = "status: {containerStatuses: [{name: app, image: x, imageID: '', ready: false, restartCount: 0, started: false, state: {running: {}}}]}\n";
    let old = pod(
        "[{name: app, image: x, startupProbe: {exec: {command: ['true']}}}]",
        status,
    );
    let new = pod("[{name: app, image: x}]", status);
    let p = reconcile(&old, &new, &Settings::preview());
    let a = only(&p);
    assert_eq!(a.action, Action::Remove);
    assert_eq!(a.started_effect, "started");
    assert_eq!(a.ready_effect, "ready");
    // with a readiness probe the worker decides: Ready stays unchanged until it succeeds
    let old = pod(
        &format!(
            "[{{name: app, image: x, startupProbe: {{exec: {{command: ['true']}}}}, readinessProbe: {{{HTTP}}}}}]"
        ),
        status,
    );
    let new = pod(
        &format!("[{{name: app, image: x, readinessProbe: {{{HTTP}}}}}]"),
        status,
    );
    let p = reconcile(&old, &new, &Settings::preview());
    let startup = p.actions.iter().find(|a| a.probe == ProbeType::Startup).unwrap();
    assert_eq!(startup.ready_effect, "unchanged");
}
