//! The podmut component: glue only. Every Kubernetes decision lives in `podmut-core`; this crate
//! converts between the WIT types of `wit/podmut.wit` and core's types.
//!
//! Build: `cargo build -p podmut-guest --target wasm32-wasip2 --release`.
#![allow(
    unsafe_code,
    reason = "wit-bindgen's export! glue expands to unsafe extern functions"
)]

#[allow(missing_docs, unreachable_pub, reason = "wit-bindgen generated code")]
mod bindings {
    wit_bindgen::generate!({
        path: "../wit",
        world: "policy",
    });
    use super::Component;
    export!(Component);
}

use bindings::exports::podmut::policy::{admission, node, validate};
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

fn not_implemented<T>(what: &str) -> Result<T, types::InputError> {
    Err(types::InputError::NotImplemented(what.to_owned()))
}

impl node::Guest for Component {
    fn qos(pod: String, options: node::QosOptions) -> Result<types::QosClass, types::InputError> {
        podmut_core::qos_document(&pod, options.apply_defaults, options.always_compute)
            .map(qos_to_wit)
            .map_err(input_error_to_wit)
    }

    fn allocate(_request: String) -> Result<node::AllocationDecision, types::InputError> {
        not_implemented("allocation (issue 4)")
    }

    fn retry_order(_pending: String) -> Result<Vec<String>, types::InputError> {
        not_implemented("resize retry order (issue 4)")
    }

    fn probe_plan(
        _old: String,
        _new: String,
        _settings: String,
    ) -> Result<Vec<node::ProbeAction>, types::InputError> {
        not_implemented("probe plan (issue 4)")
    }

    fn container_statuses(_request: String) -> Result<String, types::InputError> {
        not_implemented("container statuses (issue 4)")
    }
}

impl admission::Guest for Component {
    fn review(admission_review: String, settings: String) -> Result<String, types::InputError> {
        podmut_core::admission::review(&admission_review, &settings).map_err(input_error_to_wit)
    }

    fn coverage(
        configs: String,
        scope: Option<admission::CoverageScope>,
    ) -> Result<admission::CoverageReport, types::InputError> {
        let labels = |l: Option<Vec<(String, String)>>| l.map(|l| l.into_iter().collect());
        let scope = scope.map_or_else(Default::default, |s| podmut_core::admission::Scope {
            namespace_labels: labels(s.namespace_labels),
            pod_labels: labels(s.pod_labels),
            pod_name: s.pod_name,
        });
        podmut_core::admission::coverage(&configs, &scope)
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
