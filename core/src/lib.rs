//! podmut-core: every podmut rule, in pure Rust with no I/O.
//!
//! This crate compiles natively (tests, benchmarks) and into the podmut WebAssembly component
//! (`guest/`). It depends only on serde, k8s-openapi and kube-core's admission types; it never
//! touches a clock, a file, the network or the environment, so the same input gives the same
//! answer in every host.
//!
//! Layout, by domain like upstream's `pkg/apis/core/validation`:
//! - [`field`]: paths and field errors rendered exactly like upstream;
//! - [`document`]: JSON/YAML input, typed decoding with errors that name the field;
//! - [`settings`]: feature gates and policy knobs;
//! - [`defaults`]: the API server's defaulting (`SetDefaults_*`);
//! - [`validation`]: the request-path dispatcher ([`validation::check`]);
//! - [`pod`]: create and plain-update validation;
//! - [`ephemeral`]: ephemeral containers (`pods/ephemeralcontainers`);
//! - [`resize`]: in-place resize (`pods/resize`);
//! - [`dynamic`]: dynamic containers (`pods/dynamic`, KEP-5972);
//! - [`status_update`]: status updates (`pods/status`);
//! - [`subresource`]: what the subresource paths share (the REST strategy step, metadata rules);
//! - [`qos`]: QoS classes;
//! - [`allocation`]: the kubelet's allocation step (Allocated / Deferred / Infeasible, retry order);
//! - [`statuses`]: the container statuses and readiness the kubelet publishes;
//! - [`probe_plan`]: the kubelet's probe-worker reconciliation for a Pod change;
//! - [`admission`]: AdmissionReview in and out, and fail-closed coverage of admission configuration;
//! - [`quantity`], [`semantic`]: resource quantities and semantic equality.

pub mod admission;
pub mod allocation;
pub mod defaults;
pub mod document;
pub mod dynamic;
pub mod ephemeral;
pub mod field;
pub mod pod;
pub mod probe_plan;
pub mod qos;
pub mod quantity;
pub mod resize;
pub mod semantic;
pub mod settings;
pub mod status_update;
pub mod statuses;
pub mod subresource;
pub mod validation;

pub use allocation::{AllocationDecision, Outcome, allocate_document, retry_order_document};
pub use document::InputError;
pub use field::{ErrorList, ErrorType, FieldError, Path};
pub use probe_plan::probe_plan_documents;
pub use qos::QosClass;
pub use settings::{FeatureGates, Gate, Settings};
pub use statuses::container_statuses_document;
pub use validation::{Subresource, Verdict, check, check_documents};

/// Compute the QoS class of a Pod document (JSON or YAML), as `podmut qos` does.
///
/// `apply_defaults` runs the API server's defaulting first (requests default to limits);
/// `always_compute` ignores `status.qosClass` (upstream `ComputePodQOS` instead of `GetPodQOS`).
pub fn qos_document(pod: &str, apply_defaults: bool, always_compute: bool) -> Result<QosClass, InputError> {
    let settings = Settings::default();
    let mut pod = document::parse_pod(pod, "pod", settings.max_input_bytes)?;
    if apply_defaults {
        defaults::apply_pod_defaults(&mut pod, &settings);
    }
    Ok(if always_compute {
        qos::compute_pod_qos(&pod, &settings)
    } else {
        qos::get_pod_qos(&pod, &settings)
    })
}
