//! podmut-core: every podmut rule, in pure Rust with no I/O, behind one API.
//!
//! This crate compiles natively (tests, benchmarks) and into the podmut WebAssembly component
//! (`guest/`) and the Kubewarden module (`kubewarden/`). It depends only on serde, k8s-openapi and
//! kube-core's admission types; it never touches a clock, a file, the network or the environment,
//! so the same input gives the same answer in every host.
//!
//! # The public surface
//!
//! What the component, the Kubewarden module, the conformance runner, the fuzzers and the
//! benchmarks call — the entry points of the WIT contract and the types their answers are made
//! of — is re-exported here; every module is private and everything else is `pub(crate)`:
//!
//! - API-server side: [`check`], [`check_documents`] ([`Subresource`], [`Verdict`],
//!   [`FieldError`]), which judge workloads too ([`WORKLOAD_KINDS`], [`check_workload`]);
//!   [`qos_document`]; the admission webhook's [`review`] / [`review_value`] and
//!   the fail-closed [`coverage`] report;
//! - offline ValidatingAdmissionPolicy evaluation: [`vap_evaluate`] ([`VapRequest`] in,
//!   [`VapReport`] out) and [`vap_type_check`] (the Pod-schema type checking), CEL and the
//!   Kubernetes CEL libraries in `vap`;
//! - kubelet side: [`allocate_document`], [`retry_order_document`], [`probe_plan_documents`],
//!   [`container_statuses_document`];
//! - the rule-origin table: [`rules`] / [`rule`] ([`Rule`], [`RequestPath`]): every origin, the
//!   request paths that run it, its upstream source and one line of text;
//! - inputs: [`Settings`] and the document readers ([`parse_pod`], [`parse_text`], ...), whose
//!   errors are an [`InputError`]; documents as users have them ([`read_documents`]: streams,
//!   lists, with field validation like kubectl `--validate`, [`FieldValidation`]; read and judged
//!   in one pass by [`read_and_check`], `podmut check`'s one call); patches as
//!   `kubectl patch` applies them ([`apply_patch`]); the AdmissionReview the API server would send
//!   for a change ([`admission_request`]);
//! - one report of a change end to end: [`plan`] (verdict, QoS, allocation, probes, statuses).
//!
//! # The crates behind it
//!
//! podmut-core is the facade (as `kube` is for kube-rs): it re-exports the entry points of the
//! crates below and adds only [`plan`], which composes them into one report. Dependencies point
//! one way, from the top of this list to the bottom:
//!
//! - `podmut-vap`: ValidatingAdmissionPolicy evaluation (CEL, the Kubernetes libraries, matching);
//! - `podmut-admission`: AdmissionReview in and out, webhook coverage and rule matching;
//! - `podmut-kubelet`: resize allocation and retries, the probe plan, container statuses;
//! - `podmut-validation`: the API server's request paths, strategies and validation;
//! - `podmut-model`: documents, field paths and errors, quantities, Go-JSON, defaulting, QoS,
//!   settings and release profiles.

mod plan;

pub use plan::{Plan, PlanInput, QosChange, Section, plan};
pub use podmut_admission::review_request::{Operation, RequestOptions, admission_request};
pub use podmut_admission::{
    CoverageReport, HandlerCoverage, Scope as CoverageScope, coverage, read_pod_review_directly, review,
    review_value,
};
pub use podmut_kubelet::allocation::{
    AllocationDecision, Change, ChangeKind, Outcome, PendingCondition, RetryEntry, RetryPlan,
    allocate_document, retry_order_document,
};
pub use podmut_kubelet::probe_plan::{
    Action as ProbeActionKind, ProbeAction, ProbeReconciliation, ProbeType, probe_plan_documents,
};
pub use podmut_kubelet::statuses::container_statuses_document;
pub use podmut_model::document::{
    InputError, parse_pod, parse_stream, parse_text, pod_from_value, read_json_directly,
};
pub use podmut_model::field::{BadValue, ErrorList, ErrorType, FieldError, Path};
pub use podmut_model::field_validation::FieldValidation;
pub use podmut_model::gojson::GoValue;
pub use podmut_model::patch::{PatchType, apply_patch};
pub use podmut_model::qos::{QosClass, qos_document};
pub use podmut_model::request_path::RequestPath;
pub use podmut_model::request_path::Subresource;
pub use podmut_model::settings::{
    Enforcement, FeatureGates, Gate, KubernetesVersion, MemoryLimitDecrease, SecurityContextEscalation,
    Settings, UnknownSubresource,
};
pub use podmut_model::workload::{KINDS as WORKLOAD_KINDS, KindInfo, Workload, WorkloadKind};
pub use podmut_model::yaml::to_yaml;
pub use podmut_validation::inputs::{
    CheckedDocuments, Document, DocumentKind, read_and_check, read_documents,
};
pub use podmut_validation::rest::{GENERATED_SUFFIX as GENERATED_NAME_SUFFIX, MAX_GENERATED_NAME_BASE};
pub use podmut_validation::rollout::{Effect as RolloutEffect, InPlace, Rollout, rollout_texts};
pub use podmut_validation::rules::{Rule, UPSTREAM, rule, rules};
pub use podmut_validation::validation::{check, check_documents};
pub use podmut_validation::verdict::Verdict;
pub use podmut_validation::workload::{WorkloadDocument, check_workload, read_workload};
pub use podmut_vap::{
    VapDecision, VapEvaluation, VapExpressionWarning, VapReport, VapRequest, VapTypeCheck, VapValidation,
    vap_evaluate, vap_type_check,
};
