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
//!
//! `verdict` is `allowed`, `denied` (the component's own verdict), `invalid` (the component could
//! not read the request: denied with 400), `error` (the component failed: denied with 500) or
//! `overloaded` (no worker free in time: denied with 429). Label values are from fixed sets, never
//! copied from requests, so a client cannot grow the series count.

use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// The request path of a review, as a bounded label.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[expect(
    non_camel_case_types,
    reason = "label values are the API's lower-case subresource names"
)]
pub enum SubresourceLabel {
    /// `pods` (no subresource).
    none,
    /// `pods/dynamic`.
    dynamic,
    /// `pods/ephemeralcontainers`.
    ephemeralcontainers,
    /// `pods/resize`.
    resize,
    /// `pods/status`.
    status,
    /// Anything else (another subresource, or not a Pod).
    other,
}

impl SubresourceLabel {
    /// The label for a review's `request.resource.resource` and `request.subResource`.
    pub fn of(resource: &str, subresource: &str) -> Self {
        if resource != "pods" {
            return Self::other;
        }
        match subresource {
            "" => Self::none,
            "dynamic" => Self::dynamic,
            "ephemeralcontainers" => Self::ephemeralcontainers,
            "resize" => Self::resize,
            "status" => Self::status,
            _ => Self::other,
        }
    }
}

/// How a review was answered.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[expect(non_camel_case_types, reason = "label values are lower case")]
pub enum Verdict {
    /// The component allowed it.
    allowed,
    /// The component denied it.
    denied,
    /// The component could not read it (denied, code 400).
    invalid,
    /// The component failed (denied, code 500).
    error,
    /// No worker was free in time (denied, code 429).
    overloaded,
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
        let mut registry = Registry::with_prefix("podmut");
        let requests = Family::<RequestLabels, Counter>::default();
        let duration: HistogramFamily = Family::new_with_constructor(latency_histogram);
        let failures = Family::<FailureLabels, Counter>::default();
        let rejections = Family::<RejectionLabels, Counter>::default();
        let in_flight = Gauge::<i64, std::sync::atomic::AtomicI64>::default();
        let tls_reloads = Family::<ResultLabels, Counter>::default();
        registry.register(
            "admission_requests",
            "AdmissionReviews answered, by request path and verdict",
            requests.clone(),
        );
        registry.register_with_unit(
            "admission_request_duration",
            "Time to answer an AdmissionReview, body read to response",
            prometheus_client::registry::Unit::Seconds,
            duration.clone(),
        );
        registry.register(
            "component_failures",
            "Component calls that trapped, timed out, ran out of memory or answered garbage",
            failures.clone(),
        );
        registry.register(
            "http_rejections",
            "Requests refused before evaluation (malformed, too large, wrong media type, not ready)",
            rejections.clone(),
        );
        registry.register(
            "in_flight_requests",
            "AdmissionReviews being evaluated or waiting for a worker",
            in_flight.clone(),
        );
        registry.register(
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
                subresource: SubresourceLabel::dynamic,
                verdict: Verdict::denied,
                dry_run: false,
            })
            .inc();
        // A family without series is not encoded at all, so observe one latency.
        m.duration
            .get_or_create(&SubresourceLabels {
                subresource: SubresourceLabel::dynamic,
            })
            .observe(0.002);
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
        ] {
            assert!(text.contains(needle), "missing {needle} in\n{text}");
        }
    }

    #[test]
    fn labels_are_bounded() {
        assert_eq!(SubresourceLabel::of("pods", "dynamic"), SubresourceLabel::dynamic);
        assert_eq!(SubresourceLabel::of("pods", "../../etc"), SubresourceLabel::other);
        assert_eq!(SubresourceLabel::of("deployments", ""), SubresourceLabel::other);
    }
}
