//! The webhook's Prometheus metrics (OpenMetrics text on `GET /metrics`).
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `podmut_admission_requests_total` | counter | `subresource`, `verdict`, `dry_run` |
//! | `podmut_admission_request_duration_seconds` | histogram | `subresource` |
//! | `podmut_component_failures_total` | counter | `reason`: `trap`, `timeout`, `out_of_memory`, `bad_response` |
//! | `podmut_http_rejections_total` | counter | `reason`: `malformed`, `too_large`, `unsupported_media_type`, `not_ready` |
//! | `podmut_in_flight_requests` | gauge | |
//! | `podmut_tls_reloads_total` | counter | `result`: `success`, `failure` |
//! | `podmut_build_info` | gauge (always 1) | `version`, `component_sha256` (of the component being served) |
//! | `process_resident_memory_bytes`, `process_virtual_memory_bytes`, `process_cpu_seconds_total`, `process_open_fds`, `process_max_fds`, `process_start_time_seconds` | gauges, counter | (see [`super::process`]) |
//!
//! `verdict` is `allowed`, `denied` (the component's own verdict), `would-deny` (the component's
//! rules deny it, but `enforcement: warn` or `audit` let it through), `invalid` (the component could
//! not read the request: denied with 400), `error` (the component failed: denied with 500) or
//! `overloaded` (no worker free in time: denied with 429). Label values are from fixed sets, never
//! copied from requests, so a client cannot grow the series count.

use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::types::Subresource;

/// The request path of a review, as a bounded label: the CLI name of a Pod request path (`none`,
/// `dynamic`, `ephemeralcontainers`, `resize`, `status`: [`crate::output::SUBRESOURCES`]), or
/// `other` (another subresource, or not a Pod).
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub struct SubresourceLabel(&'static str);

impl SubresourceLabel {
    /// Anything but a Pod request path.
    pub const OTHER: Self = Self("other");

    /// The label of a Pod request path.
    pub fn path(sub: Subresource) -> Self {
        Self(crate::output::subresource_name(sub))
    }

    /// The label for a review's `request.resource.resource` and `request.subResource`.
    pub fn of(resource: &str, subresource: &str) -> Self {
        if resource != "pods" {
            return Self::OTHER;
        }
        crate::output::subresource_from_api_name(subresource).map_or(Self::OTHER, Self::path)
    }

    /// The label value.
    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl EncodeLabelValue for SubresourceLabel {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), std::fmt::Error> {
        std::fmt::Write::write_str(encoder, self.0)
    }
}

/// How a review was answered.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
#[expect(non_camel_case_types, reason = "label values are lower case")]
pub enum Verdict {
    /// The component allowed it.
    allowed,
    /// The component denied it.
    denied,
    /// The component's rules deny it, but `enforcement: warn` or `audit` allowed it (label
    /// `would-deny`).
    would_deny,
    /// The component could not read it (denied, code 400).
    invalid,
    /// The component failed (denied, code 500).
    error,
    /// No worker was free in time (denied, code 429).
    overloaded,
}

impl Verdict {
    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::allowed => "allowed",
            Verdict::denied => "denied",
            Verdict::would_deny => "would-deny",
            Verdict::invalid => "invalid",
            Verdict::error => "error",
            Verdict::overloaded => "overloaded",
        }
    }
}

// Written out because the derive would spell `would_deny` with an underscore.
impl EncodeLabelValue for Verdict {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), std::fmt::Error> {
        std::fmt::Write::write_str(encoder, self.as_str())
    }
}

/// Why the component failed.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[expect(non_camel_case_types, reason = "label values are lower case")]
pub enum FailureReason {
    /// A trap (a panic or a bug in the guest).
    trap,
    /// The epoch deadline ran out.
    timeout,
    /// Linear memory hit the cap.
    out_of_memory,
    /// It answered something that is not a response to this request.
    bad_response,
}

/// Why a request was refused before it reached the component.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[expect(non_camel_case_types, reason = "label values are lower case")]
pub enum RejectionReason {
    /// Not an AdmissionReview (HTTP 400).
    malformed,
    /// Body over the cap (HTTP 413).
    too_large,
    /// Not JSON (HTTP 415).
    unsupported_media_type,
    /// The component is not compiled yet, or the server is draining (HTTP 503).
    not_ready,
}

/// Outcome of a certificate reload.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[expect(non_camel_case_types, reason = "label values are lower case")]
pub enum ReloadResult {
    /// New certificate in use.
    success,
    /// The files could not be used; the previous certificate stays.
    failure,
}

/// Labels of `podmut_admission_requests_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// The request path.
    pub subresource: SubresourceLabel,
    /// How it was answered.
    pub verdict: Verdict,
    /// `request.dryRun`.
    pub dry_run: bool,
}

/// Labels of the duration histogram.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SubresourceLabels {
    /// The request path.
    pub subresource: SubresourceLabel,
}

/// Labels of `podmut_component_failures_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct FailureLabels {
    /// Why the component failed.
    pub reason: FailureReason,
}

/// Labels of `podmut_http_rejections_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RejectionLabels {
    /// Why the request was refused.
    pub reason: RejectionReason,
}

/// Labels of `podmut_build_info`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct BuildInfoLabels {
    /// The podmut version (`podmut --version`).
    pub version: String,
    /// SHA-256 of the component being served, hex.
    pub component_sha256: String,
}

/// A single `result` label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ResultLabels {
    /// The result.
    pub result: ReloadResult,
}

type HistogramFamily = Family<SubresourceLabels, Histogram, fn() -> Histogram>;

/// Every metric the webhook records, and the registry that encodes them.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    /// Reviews answered.
    pub requests: Family<RequestLabels, Counter>,
    /// Review latency, from the first byte of the body to the answer.
    pub duration: HistogramFamily,
    /// Component failures.
    pub failures: Family<FailureLabels, Counter>,
    /// Requests refused before evaluation.
    pub rejections: Family<RejectionLabels, Counter>,
    /// Reviews being evaluated or waiting for a worker.
    pub in_flight: Gauge<i64, std::sync::atomic::AtomicI64>,
    /// Certificate reloads.
    pub tls_reloads: Family<ResultLabels, Counter<u64, AtomicU64>>,
    /// `podmut_build_info`: one series, set once the component is loaded.
    pub build_info: Family<BuildInfoLabels, Gauge>,
}

fn latency_histogram() -> Histogram {
    // 100 µs .. ~13 s, doubling.
    Histogram::new(exponential_buckets(0.0001, 2.0, 18))
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// Create and register every metric.
    pub fn new() -> Self {
        // podmut's own metrics under `podmut_`; the process metrics keep their standard names.
        let mut registry = Registry::default();
        registry.register_collector(Box::new(super::process::ProcessCollector));
        let ours = registry.sub_registry_with_prefix("podmut");
        let build_info = Family::<BuildInfoLabels, Gauge>::default();
        ours.register(
            "build_info",
            "The podmut version and the SHA-256 of the component it serves (always 1)",
            build_info.clone(),
        );
        let requests = Family::<RequestLabels, Counter>::default();
        let duration: HistogramFamily = Family::new_with_constructor(latency_histogram);
        let failures = Family::<FailureLabels, Counter>::default();
        let rejections = Family::<RejectionLabels, Counter>::default();
        let in_flight = Gauge::<i64, std::sync::atomic::AtomicI64>::default();
        let tls_reloads = Family::<ResultLabels, Counter>::default();
        ours.register(
            "admission_requests",
            "AdmissionReviews answered, by request path and verdict",
            requests.clone(),
        );
        ours.register_with_unit(
            "admission_request_duration",
            "Time to answer an AdmissionReview, body read to response",
            prometheus_client::registry::Unit::Seconds,
            duration.clone(),
        );
        ours.register(
            "component_failures",
            "Component calls that trapped, timed out, ran out of memory or answered garbage",
            failures.clone(),
        );
        ours.register(
            "http_rejections",
            "Requests refused before evaluation (malformed, too large, wrong media type, not ready)",
            rejections.clone(),
        );
        ours.register(
            "in_flight_requests",
            "AdmissionReviews being evaluated or waiting for a worker",
            in_flight.clone(),
        );
        ours.register(
            "tls_reloads",
            "Certificate reloads after the files changed",
            tls_reloads.clone(),
        );
        Self {
            registry,
            requests,
            duration,
            failures,
            rejections,
            in_flight,
            tls_reloads,
            build_info,
        }
    }

    /// The OpenMetrics text exposition.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }

    /// Count a rejection.
    pub fn reject(&self, reason: RejectionReason) {
        self.rejections.get_or_create(&RejectionLabels { reason }).inc();
    }

    /// Publish `podmut_build_info` for the component with SHA-256 `component_sha256`.
    pub fn set_build_info(&self, component_sha256: &str) {
        self.build_info
            .get_or_create(&BuildInfoLabels {
                version: env!("CARGO_PKG_VERSION").to_owned(),
                component_sha256: component_sha256.to_owned(),
            })
            .set(1);
    }

    /// Count a component failure.
    pub fn fail(&self, reason: FailureReason) {
        self.failures.get_or_create(&FailureLabels { reason }).inc();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_the_documented_names() {
        let m = Metrics::new();
        m.requests
            .get_or_create(&RequestLabels {
                subresource: SubresourceLabel::path(Subresource::Dynamic),
                verdict: Verdict::denied,
                dry_run: false,
            })
            .inc();
        // A family without series is not encoded at all, so observe one latency.
        m.duration
            .get_or_create(&SubresourceLabels {
                subresource: SubresourceLabel::path(Subresource::Dynamic),
            })
            .observe(0.002);
        m.requests
            .get_or_create(&RequestLabels {
                subresource: SubresourceLabel::path(Subresource::None),
                verdict: Verdict::would_deny,
                dry_run: true,
            })
            .inc();
        m.set_build_info("abc123");
        m.fail(FailureReason::timeout);
        m.reject(RejectionReason::too_large);
        let text = m.encode();
        for needle in [
            r#"podmut_admission_requests_total{subresource="dynamic",verdict="denied",dry_run="false"} 1"#,
            r#"podmut_component_failures_total{reason="timeout"} 1"#,
            r#"podmut_http_rejections_total{reason="too_large"} 1"#,
            "# TYPE podmut_admission_request_duration_seconds histogram",
            r#"podmut_admission_request_duration_seconds_count{subresource="dynamic"} 1"#,
            "podmut_in_flight_requests 0",
            r#"podmut_admission_requests_total{subresource="none",verdict="would-deny",dry_run="true"} 1"#,
            r#"podmut_build_info{version=""#,
            r#"component_sha256="abc123"} 1"#,
        ] {
            assert!(text.contains(needle), "missing {needle} in\n{text}");
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn process_metrics_have_the_standard_names() {
        let text = Metrics::new().encode();
        for needle in [
            "# TYPE process_resident_memory_bytes gauge",
            "# TYPE process_cpu_seconds counter",
            "process_cpu_seconds_total ",
            "process_open_fds ",
            "process_max_fds ",
            "process_virtual_memory_bytes ",
            "process_start_time_seconds ",
        ] {
            assert!(text.contains(needle), "missing {needle} in\n{text}");
        }
        assert!(!text.contains("podmut_process"), "{text}");
    }

    #[test]
    fn labels_are_bounded() {
        assert_eq!(SubresourceLabel::of("pods", "dynamic").as_str(), "dynamic");
        assert_eq!(SubresourceLabel::of("pods", "").as_str(), "none");
        assert_eq!(SubresourceLabel::of("pods", "none"), SubresourceLabel::OTHER);
        assert_eq!(SubresourceLabel::of("pods", "../../etc"), SubresourceLabel::OTHER);
        assert_eq!(SubresourceLabel::of("deployments", ""), SubresourceLabel::OTHER);
        assert_eq!(SubresourceLabel::OTHER.as_str(), "other");
    }

    /// The labels are the request paths' names, as podmut-model's table spells them.
    #[test]
    fn labels_follow_the_request_path_table() {
        for sub in podmut_core::Subresource::ALL {
            assert_eq!(
                SubresourceLabel::of("pods", sub.api_name()).as_str(),
                sub.as_str()
            );
        }
    }
}
