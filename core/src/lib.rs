//! podmut-core: every podmut rule, in pure Rust with no I/O.
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
//!   [`FieldError`]); [`qos_document`]; the admission webhook's [`review`] / [`review_value`] and
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
//! # Inside, by domain like upstream's `pkg/apis/core/validation`
//!
//! - `validation` dispatches a Pod change to its request path; each path is one pipeline — its
//!   REST strategy step (`strategy` and the path module's `prepare_update`), the options derived
//!   from the old Pod (`pod::options`), the shared validation (`pod`), then its own rules: `pod`
//!   (create and plain update), `ephemeral` (`pods/ephemeralcontainers`), `resize` (`pods/resize`),
//!   `dynamic` (`pods/dynamic`, KEP-5972; with the strict profile also `strict`, "No
//!   SecurityContext escalations"), `status_update` (`pods/status`). No path module calls another;
//!   what two paths share lives in `pod`;
//! - `pod`: ObjectMeta, annotations, spec, containers, probes, resources, resize rules, security,
//!   scheduling, volumes, names;
//! - shared helpers, one per upstream helper: `field` (paths and errors), `names` is
//!   `pod::names` (DNS labels, qualified names, IPs), `resource_helper` (upstream's
//!   `resourcehelper`), `podutil` (facts about Pods), `semantic` (semantic equality), `quantity`,
//!   `document`, `settings`, `defaults` (`SetDefaults_*`);
//! - kubelet side: `qos`, `allocation`, `statuses`, `probe_plan`; `admission` for the webhook;
//! - inputs: `inputs` (streams and lists), `field_validation` (unknown and duplicate fields, the
//!   API server's `fieldValidation`), `patch` (strategic merge, JSON merge, JSON patch),
//!   `review_request` (building an AdmissionReview); `plan` composes the paths into one report.

mod admission;
mod allocation;
mod defaults;
mod disabled_fields;
mod document;
mod dynamic;
mod ephemeral;
mod field;
mod field_validation;
mod gojson;
mod inputs;
mod json_path;
mod node_admission;
mod order;
mod patch;
mod plan;
mod pod;
mod podutil;
mod probe_plan;
mod qos;
mod quantity;
mod request_path;
mod resize;
mod resource_helper;
mod rest;
mod review_request;
mod rules;
mod semantic;
mod settings;
mod status_update;
mod statuses;
mod strategy;
mod strict;
mod validation;
mod vap;
mod verdict;

pub use admission::{
    CoverageReport, HandlerCoverage, Scope as CoverageScope, coverage, read_pod_review_directly, review,
    review_value,
};
pub use allocation::{
    AllocationDecision, Change, ChangeKind, Outcome, PendingCondition, RetryEntry, RetryPlan,
    allocate_document, retry_order_document,
};
pub use document::{InputError, parse_pod, parse_text, pod_from_value, read_json_directly};
pub use field::{BadValue, ErrorList, ErrorType, FieldError, Path};
pub use field_validation::FieldValidation;
pub use gojson::GoValue;
pub use inputs::{CheckedDocuments, Document, DocumentKind, read_and_check, read_documents};
pub use patch::{PatchType, apply_patch};
pub use plan::{Plan, PlanInput, QosChange, Section, plan};
pub use probe_plan::{
    Action as ProbeActionKind, ProbeAction, ProbeReconciliation, ProbeType, probe_plan_documents,
};
pub use qos::{QosClass, qos_document};
pub use request_path::RequestPath;
pub use request_path::Subresource;
pub use rest::{GENERATED_SUFFIX as GENERATED_NAME_SUFFIX, MAX_GENERATED_NAME_BASE};
pub use review_request::{Operation, RequestOptions, admission_request};
pub use rules::{Rule, UPSTREAM, rule, rules};
pub use settings::{
    Enforcement, FeatureGates, Gate, KubernetesVersion, MemoryLimitDecrease, SecurityContextEscalation,
    Settings, UnknownSubresource,
};
pub use statuses::container_statuses_document;
pub use validation::{check, check_documents};
pub use vap::{
    VapDecision, VapEvaluation, VapExpressionWarning, VapReport, VapRequest, VapTypeCheck, VapValidation,
    vap_evaluate, vap_type_check,
};
pub use verdict::Verdict;
