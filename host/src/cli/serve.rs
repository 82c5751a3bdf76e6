//! `podmut serve`: the HTTPS admission webhook (the server lives in [`crate::webhook`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use base64::Engine as _;
use clap::Args;

use super::check::SettingsArgs;
use super::{Failure, PolicyArgs};
use crate::runtime::RuntimeOptions;
use crate::units::{parse_duration, parse_size_usize as parse_bytes};
use crate::webhook::{self, CertSource, LogFormat, SelfSigned, ServeConfig, TlsSpec, WebhookOptions};

/// Arguments of `podmut serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8443", value_name = "HOST:PORT")]
    addr: SocketAddr,
    /// Also serve /healthz, /readyz and /metrics over plain HTTP here (no TLS, no client
    /// certificate): for the kubelet's probes and Prometheus when --client-ca guards --addr.
    #[arg(long, value_name = "HOST:PORT")]
    probe_addr: Option<SocketAddr>,
    /// TLS certificate chain (PEM); reloaded when the file changes.
    #[arg(
        long,
        value_name = "FILE",
        requires = "tls_key",
        conflicts_with = "self_signed"
    )]
    tls_cert: Option<PathBuf>,
    /// TLS private key (PEM); reloaded when the file changes.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Generate a throw-away CA and a certificate for localhost, 127.0.0.1 and ::1 (for trying it out).
    #[arg(long)]
    self_signed: bool,
    /// With --self-signed: write the CA certificate (the webhook's caBundle, PEM) here.
    #[arg(long, value_name = "FILE", requires = "self_signed")]
    ca_out: Option<PathBuf>,
    /// Require client certificates signed by this CA bundle (PEM), e.g. the API server's.
    #[arg(long, value_name = "FILE")]
    client_ca: Option<PathBuf>,
    /// Reviews evaluated at once (default: the number of CPUs).
    #[arg(long, value_name = "N")]
    workers: Option<usize>,
    /// How long a review may wait for a free worker before it is denied as overloaded.
    #[arg(long, default_value = "1s", value_parser = parse_duration, value_name = "DURATION")]
    queue_timeout: Duration,
    /// Wall-clock budget of one evaluation (keep it below the webhook's timeoutSeconds).
    #[arg(long, default_value = "2s", value_parser = parse_duration, value_name = "DURATION")]
    deadline: Duration,
    /// Memory cap of one evaluation (bytes, or with Ki/Mi/Gi).
    #[arg(long, default_value = "256Mi", value_parser = parse_bytes, value_name = "SIZE")]
    memory_limit: usize,
    /// Largest request body (larger: HTTP 413). The API server's own limit is 3Mi.
    #[arg(long, default_value = "3Mi", value_parser = parse_bytes, value_name = "SIZE")]
    max_body: usize,
    /// How long in-flight requests may take to finish after SIGTERM.
    #[arg(long, default_value = "30s", value_parser = parse_duration, value_name = "DURATION")]
    drain_timeout: Duration,
    /// Re-read the TLS files this often even without a change notification.
    #[arg(long, default_value = "30s", value_parser = parse_duration, value_name = "DURATION")]
    tls_poll_interval: Duration,
    #[command(flatten)]
    settings: SettingsArgs,
    /// Log format.
    #[arg(long, value_enum, default_value_t, env = "PODMUT_LOG_FORMAT")]
    log_format: LogFormat,
    /// Log level or filter (RUST_LOG overrides).
    #[arg(long, default_value = "info", value_name = "FILTER")]
    log_level: String,
    #[command(flatten)]
    policy: PolicyArgs,
}

pub(crate) fn run(a: &ServeArgs) -> Result<u8, Failure> {
    webhook::init_logging(a.log_format, &a.log_level);
    let (settings, _) = a.settings.document(false)?;
    let cert = match (&a.tls_cert, &a.tls_key, a.self_signed) {
        (Some(cert), Some(key), false) => CertSource::Files {
            cert: cert.clone(),
            key: key.clone(),
        },
        (None, None, true) => {
            let s = SelfSigned::generate(&["localhost", "127.0.0.1", "::1"])
                .map_err(|e| Failure::internal(e.to_string()))?;
            match &a.ca_out {
                Some(path) => {
                    std::fs::write(path, &s.ca_pem).map_err(|e| {
                        Failure::input(format!("cannot write --ca-out {}: {e}", path.display()))
                    })?;
                    tracing::info!(ca = %path.display(), "self-signed CA written");
                }
                None => {
                    let bundle = base64::engine::general_purpose::STANDARD.encode(&s.ca_pem);
                    tracing::info!(ca_bundle = %bundle, "self-signed CA (the webhook's clientConfig.caBundle)");
                }
            }
            CertSource::Memory {
                cert_pem: s.cert_pem,
                key_pem: s.key_pem,
            }
        }
        _ => {
            return Err(Failure::input(
                "serve needs a certificate: --tls-cert FILE --tls-key FILE, or --self-signed",
            ));
        }
    };
    let workers = a
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, std::num::NonZero::get))
        .max(1);
    let runtime = RuntimeOptions {
        pooling: true,
        // One instance per worker, plus headroom for an instance being torn down.
        max_instances: u32::try_from(workers.saturating_add(2)).unwrap_or(u32::MAX),
        memory_limit: a.memory_limit,
        deadline: a.deadline,
        cache: a.policy.cache(),
    };
    if a.probe_addr == Some(a.addr) && a.addr.port() != 0 {
        return Err(Failure::input(format!(
            "--probe-addr {} is the admission address; give the probe port its own port",
            a.addr
        )));
    }
    let config = ServeConfig {
        addr: a.addr,
        probe_addr: a.probe_addr,
        tls: TlsSpec {
            cert,
            client_ca: a.client_ca.clone(),
        },
        webhook: WebhookOptions {
            settings,
            workers,
            queue_timeout: a.queue_timeout,
            max_body_bytes: a.max_body,
        },
        component: a.policy.source(),
        runtime,
        tls_poll: a.tls_poll_interval,
        drain_timeout: a.drain_timeout,
        handshake_timeout: Duration::from_secs(10),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("podmut-webhook")
        .build()
        .map_err(|e| Failure::internal(format!("cannot start the async runtime: {e}")))?;
    rt.block_on(webhook::serve(config, webhook::shutdown_signal()))
        .map_err(|e| match e {
            webhook::ServeError::Tls(_)
            | webhook::ServeError::Bind { .. }
            | webhook::ServeError::Settings(_) => Failure::input(e.to_string()),
            other => Failure::internal(other.to_string()),
        })?;
    Ok(0)
}
