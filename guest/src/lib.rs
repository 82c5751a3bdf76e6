//! The podmut component: glue only. Every Kubernetes decision lives in `podmut-core`; this crate
//! converts between the WIT types of `wit/podmut.wit` and core's types.
//!
//! Besides the `podmut:policy` world the same component exports `wasi:cli/run` ([`run`]: an
//! AdmissionReview on stdin, the response on stdout) and `wasi:http/incoming-handler` ([`http`]:
//! `POST /validate`), so the unmodified wasmtime CLI runs it (`wasmtime run -S http`,
//! `wasmtime serve -S cli`). Both take their settings from the `PODMUT_SETTINGS` environment
//! variable when the host grants one (`--env`), else the defaults.
//!
//! Build: `cargo build -p podmut-guest --target wasm32-wasip2 --profile guest` (size first; see the
//! workspace Cargo.toml).
#![expect(
    unsafe_code,
    reason = "wit-bindgen's export! glue expands to unsafe extern functions"
)]

/// The WIT bindings (wit-bindgen marks its generated items itself, so no lint needs silencing).
mod bindings {
    wit_bindgen::generate!({
        path: "../wit",
        world: "policy",
    });
    use super::Component;
    export!(Component);
}

mod http;
mod inputs;
mod report;
mod run;
mod workloads;

/// `wasi:cli/run` export (wasip2's bindings of WASI 0.2.12, the version wasmtime 48 links).
struct RunExport;

impl wasip2::exports::cli::run::Guest for RunExport {
    fn run() -> Result<(), ()> {
        run::run()
    }
}

wasip2::cli::command::export!(RunExport);

/// `wasi:http/incoming-handler` export.
struct HttpExport;

impl wasip2::exports::http::incoming_handler::Guest for HttpExport {
    fn handle(request: wasip2::http::types::IncomingRequest, out: wasip2::http::types::ResponseOutparam) {
        http::handle(&request, out);
    }
}

wasip2::http::proxy::export!(HttpExport);

/// The settings document of the CLI and HTTP exports: `$PODMUT_SETTINGS`, else `""` (the defaults).
fn settings_text() -> String {
    std::env::var("PODMUT_SETTINGS").unwrap_or_default()
}

/// The largest AdmissionReview the CLI and HTTP exports read (the settings' `maxInputBytes`).
fn input_limit(settings: &str) -> u64 {
    podmut_core::Settings::parse(settings)
        .unwrap_or_default()
        .max_input_bytes
}

use bindings::exports::podmut::policy::{admission, node, policies, validate};
use bindings::podmut::policy::types;
use podmut_core::{ErrorType, FieldError, InputError, QosClass, Subresource, Verdict};

/// The exported component.
struct Component;

fn sub_from_wit(s: types::Subresource) -> Subresource {
    match s {
        types::Subresource::None => Subresource::None,
        types::Subresource::Dynamic => Subresource::Dynamic,
        types::Subresource::EphemeralContainers => Subresource::EphemeralContainers,
        types::Subresource::Resize => Subresource::Resize,
        types::Subresource::Status => Subresource::Status,
    }
}

fn error_type_to_wit(t: ErrorType) -> types::ErrorType {
    match t {
        ErrorType::Required => types::ErrorType::Required,
        ErrorType::Invalid => types::ErrorType::Invalid,
        ErrorType::Forbidden => types::ErrorType::Forbidden,
        ErrorType::NotSupported => types::ErrorType::NotSupported,
        ErrorType::Duplicate => types::ErrorType::Duplicate,
        ErrorType::NotFound => types::ErrorType::NotFound,
        ErrorType::TooLong => types::ErrorType::TooLong,
        ErrorType::TooMany => types::ErrorType::TooMany,
        ErrorType::Internal => types::ErrorType::Internal,
        ErrorType::NodeCapacity => types::ErrorType::NodeCapacity,
        ErrorType::UnsupportedPlatform => types::ErrorType::UnsupportedPlatform,
    }
}

fn field_error_to_wit(e: &FieldError) -> types::FieldError {
    types::FieldError {
        field: e.field.to_string(),
        type_: error_type_to_wit(e.error_type),
        detail: e.detail.clone(),
        bad_value: e.rendered_bad_value(),
        origin: e.origin.to_owned(),
        message: e.body(),
    }
}

fn verdict_to_wit(v: &Verdict) -> types::Verdict {
    types::Verdict {
        allowed: v.allowed,
        errors: v.errors.iter().map(field_error_to_wit).collect(),
        warnings: v.warnings.clone(),
        message: v.message.clone(),
    }
}

fn input_error_to_wit(e: InputError) -> types::InputError {
    let problem = |input: String, message: String| types::InputProblem { input, message };
    match e {
        InputError::Malformed { input, message } => types::InputError::Malformed(problem(input, message)),
        InputError::WrongKind { input, message } => types::InputError::WrongKind(problem(input, message)),
        InputError::TooLarge { input, message } => types::InputError::TooLarge(problem(input, message)),
        InputError::BadSettings { input, message } => types::InputError::BadSettings(problem(input, message)),
        InputError::NotImplemented(what) => types::InputError::NotImplemented(what),
    }
}

fn qos_to_wit(q: QosClass) -> types::QosClass {
    match q {
        QosClass::Guaranteed => types::QosClass::Guaranteed,
        QosClass::Burstable => types::QosClass::Burstable,
        QosClass::BestEffort => types::QosClass::BestEffort,
    }
}

impl validate::Guest for Component {
    fn check(
        old_pod: Option<String>,
        new_pod: String,
        sub: types::Subresource,
        settings: String,
    ) -> Result<types::Verdict, types::InputError> {
        podmut_core::check_documents(old_pod.as_deref(), &new_pod, sub_from_wit(sub), &settings)
            .map(|v| verdict_to_wit(&v))
            .map_err(input_error_to_wit)
    }
}

impl node::Guest for Component {
    fn qos(pod: String, options: node::QosOptions) -> Result<types::QosClass, types::InputError> {
        podmut_core::qos_document(&pod, options.apply_defaults, options.always_compute)
            .map(qos_to_wit)
            .map_err(input_error_to_wit)
    }

    fn allocate(request: String) -> Result<node::AllocationDecision, types::InputError> {
        podmut_core::allocate_document(&request)
            .map(allocation_to_wit)
            .map_err(input_error_to_wit)
    }

    fn retry_order(pending: String) -> Result<node::RetryPlan, types::InputError> {
        podmut_core::retry_order_document(&pending)
            .map(|plan| node::RetryPlan {
                order: plan
                    .order
                    .into_iter()
                    .map(|e| node::RetryEntry {
                        pod: e.pod,
                        increasing_requests: e.increasing_requests,
                        priority: e.priority,
                        guaranteed: e.guaranteed,
                        pending_since: e.pending_since,
                    })
                    .collect(),
                dropped: plan.dropped,
            })
            .map_err(input_error_to_wit)
    }

    fn probe_plan(
        old: String,
        new: String,
        settings: String,
    ) -> Result<node::ProbeReconciliation, types::InputError> {
        podmut_core::probe_plan_documents(&old, &new, &settings)
            .map(probe_reconciliation_to_wit)
            .map_err(input_error_to_wit)
    }

    fn container_statuses(request: String) -> Result<String, types::InputError> {
        podmut_core::container_statuses_document(&request).map_err(input_error_to_wit)
    }
}

fn allocation_to_wit(d: podmut_core::AllocationDecision) -> node::AllocationDecision {
    use podmut_core::Outcome;
    let allocated_pod = d.allocated_pod_json();
    node::AllocationDecision {
        outcome: match d.outcome {
            Outcome::Allocated => node::AllocationOutcome::Allocated,
            Outcome::Deferred => node::AllocationOutcome::Deferred,
            Outcome::Infeasible => node::AllocationOutcome::Infeasible,
            Outcome::Halted => node::AllocationOutcome::Halted,
        },
        reason: d.reason,
        message: d.message,
        allocated_pod,
        resize_pending: d.resize_pending.map(|c| node::PodCondition {
            type_: c.type_,
            status: c.status,
            reason: c.reason,
            message: c.message,
            observed_generation: c.observed_generation,
        }),
        changes: d
            .changes
            .into_iter()
            .map(|c| node::AllocationChange {
                kind: c.kind.as_str().to_owned(),
                container: c.container,
                container_list: c.container_list,
                detail: c.detail,
            })
            .collect(),
        notes: d.notes,
    }
}

fn probe_reconciliation_to_wit(plan: podmut_core::ProbeReconciliation) -> node::ProbeReconciliation {
    node::ProbeReconciliation {
        reconciled: plan.reconciled,
        reason: plan.reason,
        actions: plan.actions.into_iter().map(probe_action_to_wit).collect(),
    }
}

fn probe_action_to_wit(a: podmut_core::ProbeAction) -> node::ProbeAction {
    node::ProbeAction {
        container: a.container,
        container_list: a.container_list,
        probe: a.probe.as_str().to_owned(),
        action: a.action.as_str().to_owned(),
        changed_fields: a.changed_fields,
        reset_counts: a.reset_counts,
        cancel_in_flight: a.cancel_in_flight,
        run_promptly: a.run_promptly,
        next_run: a.next_run,
        initial_result: a.initial_result,
        ready_effect: a.ready_effect,
        started_effect: a.started_effect,
        event: a.event,
        notes: a.notes,
    }
}

/// A WIT label list as a map, built by inserts (a repeated key keeps its last value, as
/// `collect()` does): `collect()` into a map sorts first, a copy of the sort routine of its own.
fn label_map(labels: Vec<(String, String)>) -> std::collections::BTreeMap<String, String> {
    let mut map = std::collections::BTreeMap::new();
    map.extend(labels);
    map
}

impl admission::Guest for Component {
    fn review(admission_review: String, settings: String) -> Result<String, types::InputError> {
        podmut_core::review(&admission_review, &settings).map_err(input_error_to_wit)
    }

    fn coverage(
        configs: String,
        scope: Option<admission::CoverageScope>,
    ) -> Result<admission::CoverageReport, types::InputError> {
        let labels = |l: Option<Vec<(String, String)>>| l.map(label_map);
        let scope = scope.map_or_else(Default::default, |s| podmut_core::CoverageScope {
            namespace_labels: labels(s.namespace_labels),
            pod_labels: labels(s.pod_labels),
            pod_name: s.pod_name,
        });
        podmut_core::coverage(&configs, &scope)
            .map(|r| admission::CoverageReport {
                dynamic_allowed: r.dynamic_allowed,
                handlers: r
                    .handlers
                    .into_iter()
                    .map(|h| admission::HandlerCoverage {
                        kind: h.kind,
                        name: h.name,
                        binding: h.binding,
                        intercepts_pods: h.intercepts_pods,
                        intercepts_dynamic: h.intercepts_dynamic,
                        in_scope: h.in_scope,
                        blocks_dynamic: h.blocks_dynamic,
                        fix: h.fix,
                        notes: h.notes,
                    })
                    .collect(),
                ignored: r.ignored,
            })
            .map_err(input_error_to_wit)
    }
}

impl policies::Guest for Component {
    fn evaluate(request: policies::VapRequest) -> Result<policies::VapReport, types::InputError> {
        let req = podmut_core::VapRequest {
            policies: request.policies,
            old_object: request.old_object,
            object: request.object,
            subresource: request.subresource,
            review: request.review,
            params: request.params,
            namespace_labels: request.namespace_labels.map(label_map),
            user: request.user,
        };
        podmut_core::vap_evaluate(&req)
            .map(vap_report_to_wit)
            .map_err(input_error_to_wit)
    }

    fn type_check(policies: Vec<String>) -> Result<Vec<policies::VapTypeCheck>, types::InputError> {
        podmut_core::vap_type_check(&policies)
            .map(|checks| {
                checks
                    .into_iter()
                    .map(|c| policies::VapTypeCheck {
                        policy: c.policy,
                        expression_warnings: c
                            .expression_warnings
                            .into_iter()
                            .map(|w| policies::VapExpressionWarning {
                                field_ref: w.field_ref,
                                warning: w.warning,
                                error: input_error_to_wit(w.error),
                            })
                            .collect(),
                    })
                    .collect()
            })
            .map_err(input_error_to_wit)
    }
}

fn vap_report_to_wit(r: podmut_core::VapReport) -> policies::VapReport {
    policies::VapReport {
        allowed: r.allowed,
        message: r.message,
        decisions: r
            .decisions
            .into_iter()
            .map(|d| policies::VapDecision {
                policy: d.policy,
                binding: d.binding,
                action: d.action,
                message: d.message,
                expression: d.expression,
                reason: d.reason,
            })
            .collect(),
        warnings: r.warnings,
        audit_annotations: r.audit_annotations.into_iter().collect(),
        evaluations: r
            .evaluations
            .into_iter()
            .map(|e| policies::VapEvaluation {
                policy: e.policy,
                binding: e.binding,
                params: e.params,
                evaluated: e.evaluated,
                detail: e.detail,
                validations: e
                    .validations
                    .into_iter()
                    .map(|v| policies::VapValidation {
                        index: v.index,
                        expression: v.expression,
                        outcome: v.outcome,
                        message: v.message,
                    })
                    .collect(),
            })
            .collect(),
        notes: r.notes,
    }
}
