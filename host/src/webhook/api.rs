//! The HTTP routes (see the table in [`crate::webhook`]).

use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::BytesMut;
use http_body_util::BodyExt;

use super::Webhook;
use super::metrics::{
    FailureReason, RejectionReason, RequestLabels, SubresourceLabel, SubresourceLabels, Verdict,
};
use super::review::{self, RequestInfo};
use crate::error::{CallError, HostError, describe_input_error};
use crate::types::InputError;

/// The webhook's routes, ready to serve (or to drive with `tower::ServiceExt::oneshot` in tests).
pub fn router(webhook: Webhook) -> Router {
    Router::new()
        .route("/validate", post(validate))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .fallback(not_found)
        .with_state(webhook)
}

/// The probe port's routes: `/healthz`, `/readyz` and `/metrics`, nothing else.
pub fn probe_router(webhook: Webhook) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .fallback(probe_not_found)
        .with_state(webhook)
}

const JSON: &str = "application/json";

fn json_response(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, HeaderValue::from_static(JSON))],
        body,
    )
        .into_response()
}

fn text_response(status: StatusCode, body: &'static str) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        )],
        body,
    )
        .into_response()
}

async fn healthz() -> Response {
    text_response(StatusCode::OK, "ok\n")
}

async fn readyz(State(w): State<Webhook>) -> Response {
    if w.is_ready() {
        text_response(StatusCode::OK, "ready\n")
    } else if w.shared.evaluator.get().is_none() {
        text_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "not ready: compiling the policy component\n",
        )
    } else {
        text_response(StatusCode::SERVICE_UNAVAILABLE, "not ready: shutting down\n")
    }
}

async fn metrics(State(w): State<Webhook>) -> Response {
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
        )],
        w.metrics().encode(),
    )
        .into_response()
}

async fn not_found() -> Response {
    json_response(
        StatusCode::NOT_FOUND,
        review::http_status(
            404,
            "NotFound",
            "podmut serves POST /validate, GET /healthz, /readyz and /metrics",
        ),
    )
}

async fn probe_not_found() -> Response {
    json_response(
        StatusCode::NOT_FOUND,
        review::http_status(
            404,
            "NotFound",
            "the probe port serves GET /healthz, /readyz and /metrics; AdmissionReviews go to the HTTPS port",
        ),
    )
}

/// Decrements the in-flight gauge when a review is done, however it ends.
struct InFlight<'a>(&'a Webhook);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.metrics().in_flight.dec();
    }
}

fn reject(
    w: &Webhook,
    reason: RejectionReason,
    status: StatusCode,
    api_reason: &str,
    message: &str,
) -> Response {
    w.metrics().reject(reason);
    tracing::warn!(status = status.as_u16(), %message, "request refused");
    json_response(status, review::http_status(status.as_u16(), api_reason, message))
}

fn is_json(headers: &HeaderMap) -> bool {
    let Some(ct) = headers.get(header::CONTENT_TYPE) else {
        return true;
    };
    let ct = ct.to_str().unwrap_or_default();
    let essence = ct.split(';').next().unwrap_or_default().trim();
    essence.eq_ignore_ascii_case(JSON)
}

/// Read the whole request body, at most `max_body_bytes` of it.
///
/// A body over the cap is refused with 413 and the rest of it is discarded in the background
/// ([`discard_rest`]) rather than dropped.
async fn read_body(w: &Webhook, headers: &HeaderMap, mut body: Body) -> Result<Bytes, Response> {
    let max = w.options().max_body_bytes;
    let too_large = |w: &Webhook, body: Body, received: usize| {
        discard_rest(body, declared_length(headers), received, max);
        reject(
            w,
            RejectionReason::too_large,
            StatusCode::PAYLOAD_TOO_LARGE,
            "RequestEntityTooLarge",
            &format!("the request body is larger than {max} bytes"),
        )
    };
    if declared_length(headers).is_some_and(|n| n > max as u64) {
        return Err(too_large(w, body, 0));
    }
    let mut buf = BytesMut::new();
    while let Some(frame) = body.frame().await {
        let frame = match frame {
            Ok(f) => f,
            Err(e) => {
                return Err(reject(
                    w,
                    RejectionReason::malformed,
                    StatusCode::BAD_REQUEST,
                    "BadRequest",
                    &format!("cannot read the request body: {e}"),
                ));
            }
        };
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        if buf.len().saturating_add(data.len()) > max {
            let received = buf.len() + data.len();
            return Err(too_large(w, body, received));
        }
        buf.extend_from_slice(&data);
    }
    Ok(buf.freeze())
}

fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
}

/// How much of a refused body podmut reads and throws away: this many times the cap, and at least
/// [`DISCARD_MIN`].
const DISCARD_FACTOR: usize = 4;
/// The least podmut reads of a refused body (16 MiB: a few API-server-sized requests).
const DISCARD_MIN: usize = 16 << 20;
/// How long podmut keeps reading a refused body.
const DISCARD_TIME: Duration = Duration::from_secs(5);

/// Read and throw away the rest of a body that was refused with 413, so the client finishes its
/// upload and reads the answer; give up (and let the stream be reset) past [`DISCARD_FACTOR`]
/// times the cap (at least [`DISCARD_MIN`]) or [`DISCARD_TIME`].
///
/// Why not just drop it: over HTTP/2, an unread request body makes the server end the stream with
/// `RST_STREAM(NO_ERROR)` right after the 413 (RFC 9113 §8.1 allows that). hyper's client reads
/// the response through it, but a client still uploading may treat the reset as a failed request — curl 7.88 fails with "Stream error in the HTTP/2 framing layer" and
/// never shows the 413. Reading the rest (bounded, into nothing) lets the stream end normally; the
/// same keeps an HTTP/1.1 connection usable. A body too large to read in time is reset as before.
fn discard_rest(mut body: Body, declared: Option<u64>, received: usize, max: usize) {
    let budget = max.saturating_mul(DISCARD_FACTOR).max(DISCARD_MIN);
    if declared.is_some_and(|n| n > budget as u64) {
        return; // not worth reading: dropped, so the stream is reset after the 413
    }
    tokio::spawn(async move {
        let mut read = received;
        let drained = tokio::time::timeout(DISCARD_TIME, async {
            while let Some(Ok(frame)) = body.frame().await {
                read = read.saturating_add(frame.data_ref().map_or(0, Bytes::len));
                if read > budget {
                    break;
                }
            }
        })
        .await;
        tracing::debug!(
            bytes = read,
            timed_out = drained.is_err(),
            "discarded the rest of a refused body"
        );
    });
}

async fn validate(State(w): State<Webhook>, headers: HeaderMap, body: Body) -> Response {
    let started = Instant::now();
    w.metrics().in_flight.inc();
    let _in_flight = InFlight(&w);
    if !is_json(&headers) {
        return reject(
            &w,
            RejectionReason::unsupported_media_type,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UnsupportedMediaType",
            "an AdmissionReview is sent as Content-Type: application/json",
        );
    }
    let bytes = match read_body(&w, &headers, body).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let info = match review::read_request(&bytes) {
        Ok(i) => i,
        Err(message) => {
            return reject(
                &w,
                RejectionReason::malformed,
                StatusCode::BAD_REQUEST,
                "BadRequest",
                &message,
            );
        }
    };
    let Some(evaluator) = w.shared.evaluator.get() else {
        return reject(
            &w,
            RejectionReason::not_ready,
            StatusCode::SERVICE_UNAVAILABLE,
            "ServiceUnavailable",
            "podmut is not ready: the policy component is still compiling",
        );
    };
    // serde_json accepted the body, so it is UTF-8.
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let Answer {
        verdict,
        body,
        would_deny,
    } = evaluate(&w, evaluator, &info, text).await;
    let label = SubresourceLabel::of(&info.resource, &info.subresource);
    let elapsed = started.elapsed();
    w.metrics()
        .requests
        .get_or_create(&RequestLabels {
            subresource: label,
            verdict,
            dry_run: info.dry_run,
        })
        .inc();
    w.metrics()
        .duration
        .get_or_create(&SubresourceLabels { subresource: label })
        .observe(elapsed.as_secs_f64());
    let ms = elapsed.as_secs_f64() * 1000.0;
    match verdict {
        Verdict::allowed => {
            tracing::debug!(uid = %info.uid, namespace = %info.namespace, name = %info.name, operation = %info.operation, subresource = %info.subresource, dry_run = info.dry_run, verdict = ?verdict, ms, "review");
        }
        Verdict::denied => {
            tracing::info!(uid = %info.uid, namespace = %info.namespace, name = %info.name, operation = %info.operation, subresource = %info.subresource, dry_run = info.dry_run, verdict = ?verdict, ms, "review");
        }
        Verdict::would_deny => {
            // enforcement: warn/audit — allowed, but this is the record an operator rolls out on.
            let message = would_deny.as_deref().unwrap_or_default();
            tracing::info!(uid = %info.uid, namespace = %info.namespace, name = %info.name, operation = %info.operation, subresource = %info.subresource, dry_run = info.dry_run, verdict = verdict.as_str(), %message, ms, "review allowed by enforcement; podmut would deny it");
        }
        _ => {
            tracing::warn!(uid = %info.uid, namespace = %info.namespace, name = %info.name, operation = %info.operation, subresource = %info.subresource, dry_run = info.dry_run, verdict = ?verdict, ms, "review not judged; denied");
        }
    }
    json_response(StatusCode::OK, body)
}

/// What the webhook answers one review with.
struct Answer {
    verdict: Verdict,
    /// The AdmissionReview response.
    body: String,
    /// The denial message when `warn`/`audit` enforcement allowed a request the rules deny.
    would_deny: Option<String>,
}

impl From<(Verdict, String)> for Answer {
    fn from((verdict, body): (Verdict, String)) -> Self {
        Self {
            verdict,
            body,
            would_deny: None,
        }
    }
}

/// Run the component on one review; always an AdmissionReview answer for `info.uid`.
async fn evaluate(w: &Webhook, evaluator: &super::Evaluator, info: &RequestInfo, text: String) -> Answer {
    let uid = info.uid.as_str();
    let queue_timeout = w.options().queue_timeout;
    // Timed out, or the semaphore was closed (never done): overloaded either way.
    let Ok(Ok(permit)) = tokio::time::timeout(queue_timeout, evaluator.permits.clone().acquire_owned()).await
    else {
        let msg = format!(
            "podmut is overloaded: no worker was free within {queue_timeout:?}; the request is denied (podmut fails closed), retry"
        );
        return (
            Verdict::overloaded,
            review::deny(uid, 429, "TooManyRequests", &msg, Some(1)),
        )
            .into();
    };
    let runtime = evaluator.runtime.clone();
    let settings = w.shared.settings.clone();
    let joined = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        runtime.review(&text, &settings)
    })
    .await;
    let result = match joined {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(uid, error = %e, "the evaluation task failed");
            let msg =
                format!("podmut: the evaluation failed ({e}); the request is denied (podmut fails closed)");
            return (
                Verdict::error,
                review::deny(uid, 500, "InternalError", &msg, None),
            )
                .into();
        }
    };
    let answer: (Verdict, String) = match result {
        Ok(out) => match review::read_response(&out, uid) {
            Ok(r) => {
                let verdict = match (r.allowed, &r.would_deny) {
                    (true, Some(_)) => Verdict::would_deny,
                    (true, None) => Verdict::allowed,
                    (false, _) => Verdict::denied,
                };
                return Answer {
                    verdict,
                    body: out,
                    would_deny: r.would_deny,
                };
            }
            Err(why) => {
                w.metrics().fail(FailureReason::bad_response);
                tracing::error!(uid, %why, "the component answered nonsense");
                let msg = format!(
                    "podmut: the policy component failed: {why}; the request is denied (podmut fails closed)"
                );
                (
                    Verdict::error,
                    review::deny(uid, 500, "InternalError", &msg, None),
                )
            }
        },
        Err(CallError::Input(InputError::NotImplemented(what))) => {
            let msg = format!(
                "podmut: this component does not implement {what}; the request is denied (podmut fails closed)"
            );
            (
                Verdict::error,
                review::deny(uid, 500, "InternalError", &msg, None),
            )
        }
        Err(CallError::Input(e)) => {
            let msg = format!("podmut cannot judge this request: {}", describe_input_error(&e));
            (Verdict::invalid, review::deny(uid, 400, "BadRequest", &msg, None))
        }
        Err(CallError::Host(h)) => {
            let reason = match &h {
                HostError::Timeout(_) => FailureReason::timeout,
                HostError::OutOfMemory { .. } => FailureReason::out_of_memory,
                _ => FailureReason::trap,
            };
            w.metrics().fail(reason);
            tracing::error!(uid, error = %h, "the policy component failed");
            let what = match &h {
                HostError::Trap { .. } => "the policy component trapped".to_owned(),
                other => format!("{other}"),
            };
            let msg = format!("podmut: {what}; the request is denied (podmut fails closed)");
            (
                Verdict::error,
                review::deny(uid, 500, "InternalError", &msg, None),
            )
        }
    };
    answer.into()
}
