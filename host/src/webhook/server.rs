//! The HTTPS listener: TLS handshakes, HTTP/1.1 and HTTP/2 connections, graceful shutdown, and
//! start-up (compiling the component while already answering `/healthz`).

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

use super::metrics::{ReloadResult, ResultLabels};
use super::tls::{self, TlsError, TlsSpec, TlsState};
use super::{Webhook, WebhookOptions, router};
use crate::runtime::{ComponentSource, Runtime, RuntimeOptions};

/// Everything `podmut serve` needs.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Where to listen.
    pub addr: SocketAddr,
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
    tracing::info!(addr = %local, "listening (HTTPS)");
    let webhook = Webhook::new(config.webhook.clone());
    let source = config.component.clone();
    let options = config.runtime.clone();
    let loading = tokio::task::spawn_blocking(move || Runtime::load(&source, options));
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
                tracing::info!(
                    digest = rt.digest(),
                    bytes = rt.component_size(),
                    "policy component ready"
                );
                ready.set_runtime(rt);
                std::future::pending::<Result<(), ServeError>>().await
            }
            Ok(Err(e)) => Err(ServeError::Component(e)),
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
    served
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
    loop {
        let (tcp, peer) = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
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
