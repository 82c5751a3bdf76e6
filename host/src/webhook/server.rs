//! The HTTPS listener: TLS handshakes, HTTP/1.1 and HTTP/2 connections, graceful shutdown, and
//! start-up (compiling the component while already answering `/healthz`); and the optional
//! plain-HTTP probe listener (`--probe-addr`).

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};

use super::metrics::{ReloadResult, ResultLabels};
use super::tls::{self, TlsError, TlsSpec, TlsState};
use super::{Webhook, WebhookOptions, router};
use crate::runtime::{ComponentSource, Runtime, RuntimeOptions};

/// Everything `podmut serve` needs.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Where to listen.
    pub addr: SocketAddr,
    /// Where to serve `/healthz`, `/readyz` and `/metrics` over plain HTTP as well (`--probe-addr`).
    pub probe_addr: Option<SocketAddr>,
    /// Certificate and client CA.
    pub tls: TlsSpec,
    /// How reviews are evaluated.
    pub webhook: WebhookOptions,
    /// The component.
    pub component: ComponentSource,
    /// Runtime limits (memory cap, deadline, pool size, cache).
    pub runtime: RuntimeOptions,
    /// How often the TLS files are re-read even without a change event.
    pub tls_poll: Duration,
    /// How long in-flight requests may take to finish after shutdown begins.
    pub drain_timeout: Duration,
    /// How long a client may take to finish the TLS handshake.
    pub handshake_timeout: Duration,
}

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The certificate could not be loaded.
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The component could not be loaded.
    #[error("cannot load the policy component: {0}")]
    Component(#[from] crate::error::HostError),
    /// The component refused the settings (unknown key, unsupported `kubernetesVersion`, ...).
    #[error("{0}")]
    Settings(String),
}

/// Ask the component whether it accepts `settings`, before any review depends on them: a settings
/// document it refuses would turn every review into a 400 denial.
fn check_settings(runtime: &Runtime, settings: &str) -> Result<(), ServeError> {
    const POD: &str = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"settings-check"},"spec":{"containers":[{"name":"c","image":"i"}]}}"#;
    match runtime.check(None, POD, crate::types::Subresource::None, settings) {
        Err(crate::error::CallError::Input(e @ crate::types::InputError::BadSettings(_))) => {
            Err(ServeError::Settings(crate::error::describe_input_error(&e)))
        }
        _ => Ok(()),
    }
}

/// Resolves on SIGTERM or Ctrl-C.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("interrupted; shutting down"),
        () = term => tracing::info!("SIGTERM; shutting down"),
    }
}

/// Load TLS, listen, compile the component in the background (ready once done), serve until
/// `shutdown` resolves, then drain.
pub async fn serve(config: ServeConfig, shutdown: impl Future<Output = ()>) -> Result<(), ServeError> {
    let tls = Arc::new(TlsState::load(config.tls.clone())?);
    let listener = TcpListener::bind(config.addr)
        .await
        .map_err(|source| ServeError::Bind {
            addr: config.addr,
            source,
        })?;
    let local = listener.local_addr().unwrap_or(config.addr);
    let probes = match config.probe_addr {
        Some(addr) => Some(
            TcpListener::bind(addr)
                .await
                .map_err(|source| ServeError::Bind { addr, source })?,
        ),
        None => None,
    };
    tracing::info!(addr = %local, "listening (HTTPS)");
    let webhook = Webhook::new(config.webhook.clone());
    // The probe port outlives the admission port's drain: the kubelet sees /readyz turn 503.
    let (probes_stop, probes_stopped) = tokio::sync::oneshot::channel::<()>();
    let probe_task = probes.map(|l| {
        if let Ok(a) = l.local_addr() {
            tracing::info!(addr = %a, "listening (HTTP: /healthz, /readyz, /metrics)");
        }
        tokio::spawn(run_probes(webhook.clone(), l, async move {
            let _ = probes_stopped.await;
        }))
    });
    let source = config.component.clone();
    let options = config.runtime.clone();
    let settings = config.webhook.settings.clone();
    let loading = tokio::task::spawn_blocking(move || {
        let rt = Runtime::load(&source, options).map_err(ServeError::Component)?;
        check_settings(&rt, &settings)?;
        Ok::<_, ServeError>(rt)
    });
    let metrics_hook = webhook.clone();
    let reloader = tls::spawn_reloader(tls.clone(), config.tls_poll, move |r| {
        let result = if r.is_ok() {
            ReloadResult::success
        } else {
            ReloadResult::failure
        };
        metrics_hook
            .metrics()
            .tls_reloads
            .get_or_create(&ResultLabels { result })
            .inc();
    });
    let ready = webhook.clone();
    let load = async move {
        match loading.await {
            Ok(Ok(rt)) => {
                let (digest, bytes) = (rt.digest().to_owned(), rt.component_size());
                // Ready first, then say so: whoever reads the log may probe at once.
                ready.set_runtime(rt);
                tracing::info!(digest = %digest, bytes, "policy component ready");
                std::future::pending::<Result<(), ServeError>>().await
            }
            Ok(Err(e)) => Err(e),
            Err(e) => Err(ServeError::Component(crate::error::HostError::Trap {
                message: format!("the loading task failed: {e}"),
                stderr: String::new(),
            })),
        }
    };
    let served = tokio::select! {
        r = load => r,
        () = run(webhook.clone(), listener, tls, config.drain_timeout, config.handshake_timeout, shutdown) => Ok(()),
    };
    reloader.abort();
    let _ = probes_stop.send(());
    if let Some(task) = probe_task {
        let _ = task.await;
    }
    served
}

/// How long to wait before accepting again after `accept` failed.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// The next connection on `listener`, or `None` once `shutdown` resolves (shutdown wins when both
/// are ready). A failed `accept` (out of file descriptors and the like) is logged with `port` and
/// retried after [`ACCEPT_BACKOFF`] instead of spinning.
async fn next_connection(
    listener: &TcpListener,
    mut shutdown: Pin<&mut impl Future<Output = ()>>,
    port: &str,
) -> Option<(TcpStream, SocketAddr)> {
    loop {
        tokio::select! {
            biased;
            () = shutdown.as_mut() => return None,
            accepted = listener.accept() => match accepted {
                Ok(connection) => return Some(connection),
                Err(e) => {
                    tracing::warn!(error = %e, port, "accept failed");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
            },
        }
    }
}

/// How long open probe-port connections (keep-alive scrapes) may take to finish at shutdown.
const PROBE_DRAIN: Duration = Duration::from_secs(2);

/// Serve [`super::probe_router`] over plain HTTP (HTTP/1.1, or HTTP/2 with prior knowledge) on
/// `listener` until `shutdown` resolves. No TLS and no client certificates: the kubelet's probes
/// and Prometheus reach it whatever `--client-ca` demands of the admission port.
pub async fn run_probes(webhook: Webhook, listener: TcpListener, shutdown: impl Future<Output = ()>) {
    let app = super::probe_router(webhook);
    let graceful = GracefulShutdown::new();
    let builder = auto::Builder::new(TokioExecutor::new());
    tokio::pin!(shutdown);
    while let Some((tcp, peer)) = next_connection(&listener, shutdown.as_mut(), "probe port").await {
        let conn = builder.serve_connection(TokioIo::new(tcp), TowerToHyperService::new(app.clone()));
        let watched = graceful.watch(conn.into_owned());
        tokio::spawn(async move {
            if let Err(e) = watched.await {
                tracing::debug!(%peer, error = %e, "probe connection ended with an error");
            }
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(PROBE_DRAIN, graceful.shutdown()).await;
}

/// Accept TLS connections on `listener` and serve `webhook` until `shutdown` resolves; then stop
/// accepting, report not ready, and wait up to `drain_timeout` for in-flight requests.
pub async fn run(
    webhook: Webhook,
    listener: TcpListener,
    tls: Arc<TlsState>,
    drain_timeout: Duration,
    handshake_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) {
    let app = router(webhook.clone());
    let graceful = GracefulShutdown::new();
    let builder = auto::Builder::new(TokioExecutor::new());
    tokio::pin!(shutdown);
    while let Some((tcp, peer)) = next_connection(&listener, shutdown.as_mut(), "admission port").await {
        let acceptor = tls.acceptor();
        let service = TowerToHyperService::new(app.clone());
        let builder = builder.clone();
        let watcher = graceful.watcher();
        tokio::spawn(async move {
            let stream = match tokio::time::timeout(handshake_timeout, acceptor.accept(tcp)).await {
                Ok(Ok(s)) => s,
                Ok(Err(e)) => {
                    tracing::debug!(%peer, error = %e, "TLS handshake failed");
                    return;
                }
                Err(_) => {
                    tracing::debug!(%peer, "TLS handshake timed out");
                    return;
                }
            };
            let conn = builder.serve_connection(TokioIo::new(stream), service);
            if let Err(e) = watcher.watch(conn.into_owned()).await {
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            }
        });
    }
    webhook.start_draining();
    drop(listener);
    let open = graceful.count();
    tracing::info!(connections = open, "draining in-flight requests");
    match tokio::time::timeout(drain_timeout, graceful.shutdown()).await {
        Ok(()) => tracing::info!("drained; bye"),
        Err(_) => tracing::warn!(?drain_timeout, "drain timeout; closing the remaining connections"),
    }
}
