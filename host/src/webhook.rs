//! The HTTPS validating admission webhook (`podmut serve`).
//!
//! Routes:
//!
//! - `POST /validate`: AdmissionReview `admission.k8s.io/v1` in and out, judged by the component's
//!   `admission.review` (routing by `request.subResource`, the API server's `Status` shape on deny,
//!   warnings within the API server's limits — all in the component);
//! - `GET /healthz`: the process serves (liveness);
//! - `GET /readyz`: the component is compiled and the server is not draining (readiness);
//! - `GET /metrics`: Prometheus/OpenMetrics text (see [`metrics`]).
//!
//! # The probe port
//!
//! With `--probe-addr`, `/healthz`, `/readyz` and `/metrics` are also served over plain HTTP on a
//! second listener ([`probe_router`], [`server::run_probes`]), which never asks for a client
//! certificate: the kubelet's probes and Prometheus keep working when `--client-ca` locks the
//! admission port to the API server. The probe port serves nothing else (no `/validate`).
//!
//! # Isolation
//!
//! Every review runs in a fresh component instance from the runtime's `InstancePre` (pooling
//! allocator, memory cap, epoch deadline: [`crate::runtime`]), on tokio's blocking pool, behind a
//! semaphore of `workers` permits. A request that waits longer than `queue_timeout` for a permit is
//! answered as overloaded instead of queueing without bound.
//!
//! # Failure responses
//!
//! Whenever the request is a readable AdmissionReview, podmut answers **HTTP 200 with
//! `allowed: false`** and a `Status` saying what went wrong — it never lets a request through
//! because something failed:
//!
//! | what happened | HTTP | `response.status` | metric |
//! |---|---|---|---|
//! | the component allowed / denied | 200 | its own (deny: 422 `Invalid`) | `verdict="allowed"/"denied"` |
//! | the rules deny it, `enforcement: warn`/`audit` allows it | 200 | `allowed: true`, audit annotation `would-deny` (warn: warnings) | `verdict="would-deny"` |
//! | the component cannot read the request (bad Pod, missing `oldObject`, ...) | 200 | 400 `BadRequest` | `verdict="invalid"` |
//! | trap, deadline, out of memory, nonsense answer | 200 | 500 `InternalError` | `verdict="error"`, `podmut_component_failures_total{reason}` |
//! | no worker free within `queue_timeout` | 200 | 429 `TooManyRequests`, `retryAfterSeconds: 1` | `verdict="overloaded"` |
//! | body is not an AdmissionReview (no `request.uid`) | 400 | — (a `Status` body) | `podmut_http_rejections_total{reason="malformed"}` |
//! | body over the cap (3 MiB, the API server's own limit) | 413 | — | `reason="too_large"` |
//! | `Content-Type` not JSON | 415 | — | `reason="unsupported_media_type"` |
//! | component still compiling, or draining before ready | 503 | — | `reason="not_ready"` |
//!
//! Why HTTP 200 + deny rather than HTTP 500 for a component failure: with `failurePolicy: Fail`
//! both reject the request, but (1) the API server shows the user our message ("admission webhook
//! ... denied the request: podmut: the policy component ran out of time ...") instead of a generic
//! "failed calling webhook", and the `code` reaches the client (500, or 429 which clients may
//! retry); (2) it stays fail-closed even if someone registers the webhook with
//! `failurePolicy: Ignore`, where an HTTP error would let the request through — otherwise a Pod
//! crafted to crash or stall the guest would be a bypass. Requests that are not AdmissionReviews
//! get HTTP errors: there is no uid to answer, and the API server never sends them.

pub mod metrics;
pub mod process;
pub mod review;
pub mod server;
pub mod tls;

mod api;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::sync::Semaphore;

use crate::runtime::Runtime;

pub use api::{probe_router, router};
pub use metrics::Metrics;
pub use server::{ServeConfig, ServeError, serve, shutdown_signal};
pub use tls::{CertSource, SelfSigned, TlsError, TlsSpec, TlsState};

/// The API server's own request body limit, and the webhook's default cap.
pub const DEFAULT_MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// How the webhook evaluates reviews.
#[derive(Clone, Debug)]
pub struct WebhookOptions {
    /// The settings document passed to every `admission.review` call (`""`: the defaults).
    pub settings: String,
    /// Reviews evaluated at once (the semaphore's permits).
    pub workers: usize,
    /// How long a review may wait for a worker before it is answered as overloaded.
    pub queue_timeout: Duration,
    /// Largest request body accepted (larger: HTTP 413).
    pub max_body_bytes: usize,
}

impl Default for WebhookOptions {
    fn default() -> Self {
        Self {
            settings: String::new(),
            workers: std::thread::available_parallelism().map_or(2, std::num::NonZero::get),
            queue_timeout: Duration::from_secs(1),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
        }
    }
}

/// The component, once compiled, and the permits to run it.
#[derive(Debug)]
struct Evaluator {
    runtime: Runtime,
    permits: Arc<Semaphore>,
}

#[derive(Debug)]
struct Shared {
    options: WebhookOptions,
    settings: Arc<str>,
    evaluator: OnceLock<Evaluator>,
    draining: AtomicBool,
    metrics: Metrics,
}

/// The webhook's state, shared by every route. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Webhook {
    shared: Arc<Shared>,
}

impl Webhook {
    /// A webhook that is not ready yet: give it the component with [`Webhook::set_runtime`].
    pub fn new(options: WebhookOptions) -> Self {
        let settings: Arc<str> = options.settings.as_str().into();
        Self {
            shared: Arc::new(Shared {
                options,
                settings,
                evaluator: OnceLock::new(),
                draining: AtomicBool::new(false),
                metrics: Metrics::new(),
            }),
        }
    }

    /// A webhook that is ready with `runtime`.
    pub fn with_runtime(options: WebhookOptions, runtime: Runtime) -> Self {
        let w = Self::new(options);
        w.set_runtime(runtime);
        w
    }

    /// Hand over the compiled component: the webhook becomes ready. Later calls are ignored.
    pub fn set_runtime(&self, runtime: Runtime) {
        if self.shared.evaluator.get().is_some() {
            return;
        }
        self.shared.metrics.set_build_info(runtime.digest());
        let permits = Arc::new(Semaphore::new(self.shared.options.workers.max(1)));
        let _ = self.shared.evaluator.set(Evaluator { runtime, permits });
    }

    /// The component is compiled and the server is not draining.
    pub fn is_ready(&self) -> bool {
        self.shared.evaluator.get().is_some() && !self.shared.draining.load(Ordering::Relaxed)
    }

    /// Stop reporting ready (shutdown has begun); reviews are still answered.
    pub fn start_draining(&self) {
        self.shared.draining.store(true, Ordering::Relaxed);
    }

    /// The workers evaluating a review right now (0 before the component is ready).
    pub fn busy_workers(&self) -> usize {
        self.shared.evaluator.get().map_or(0, |e| {
            self.shared
                .options
                .workers
                .max(1)
                .saturating_sub(e.permits.available_permits())
        })
    }

    /// The metrics.
    pub fn metrics(&self) -> &Metrics {
        &self.shared.metrics
    }

    /// The options.
    pub fn options(&self) -> &WebhookOptions {
        &self.shared.options
    }
}

/// Log output format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line (for log pipelines).
    Json,
}

/// Install the global `tracing` subscriber on stderr. `RUST_LOG` overrides `level`.
pub fn init_logging(format: LogFormat, level: &str) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(level))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colour only for a person at a terminal, never in a pipe or a log collector.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false);
    // A subscriber already installed (tests) stays.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .try_init(),
    };
}
