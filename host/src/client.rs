//! A small HTTPS client for sending one AdmissionReview to a running webhook
//! (`podmut review --server URL --ca FILE`), the way the API server calls it: `POST` with
//! `Content-Type: application/json`, TLS verified against the webhook's CA bundle. hyper and
//! rustls are already in the binary for the server; this adds no dependency.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::net::TcpStream;

/// Why a review could not be sent or its answer not read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server URL is not `http(s)://host[:port][/path]`.
    #[error("--server {url}: {why}")]
    Url {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        why: String,
    },
    /// The CA bundle could not be read or holds no certificate.
    #[error("--ca {}: {why}", path.display())]
    Ca {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        why: String,
    },
    /// Connecting, the TLS handshake or the exchange failed (after retrying until the timeout).
    #[error("{url}: {why}")]
    Exchange {
        /// The URL.
        url: String,
        /// What went wrong last.
        why: String,
    },
}

/// Where to send reviews.
pub struct Server {
    url: String,
    host: String,
    port: u16,
    path: String,
    tls: Option<tokio_rustls::TlsConnector>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("url", &self.url)
            .field("tls", &self.tls.is_some())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Parse `url` (`https://host:port/validate`; no path means `/validate`); `https://` needs `ca`.
    pub fn new(url: &str, ca: Option<&Path>) -> Result<Self, ClientError> {
        let bad = |why: &str| ClientError::Url {
            url: url.to_owned(),
            why: why.to_owned(),
        };
        let uri: http::Uri = url
            .parse()
            .map_err(|e: http::uri::InvalidUri| bad(&e.to_string()))?;
        let https = match uri.scheme_str() {
            Some("https") => true,
            Some("http") => false,
            _ => return Err(bad("the scheme must be https:// or http://")),
        };
        let host = uri.host().ok_or_else(|| bad("no host"))?;
        let host = host.trim_start_matches('[').trim_end_matches(']').to_owned();
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let path = match uri.path_and_query().map(|p| p.as_str()) {
            None | Some("" | "/") => "/validate".to_owned(),
            Some(p) => p.to_owned(),
        };
        let tls = if https {
            let ca = ca.ok_or_else(|| bad("https:// needs --ca FILE (the webhook's CA bundle, PEM)"))?;
            Some(connector(ca)?)
        } else {
            None
        };
        Ok(Self {
            url: url.to_owned(),
            host,
            port,
            path,
            tls,
        })
    }

    /// `POST` `body`; returns the HTTP status and the response body. Connection failures and
    /// HTTP 503 (a webhook still compiling its component) are retried until `timeout`.
    pub fn post(&self, body: &[u8], timeout: Duration) -> Result<(u16, Vec<u8>), ClientError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| self.failed(format!("cannot start the client runtime: {e}")))?;
        let body = Bytes::copy_from_slice(body);
        let deadline = Instant::now() + timeout;
        runtime.block_on(async {
            loop {
                let attempt = tokio::time::timeout_at(deadline.into(), self.exchange(body.clone())).await;
                let result = match attempt {
                    Ok(r) => r,
                    Err(_) => Err(format!("no answer within {timeout:?}")),
                };
                let retry = match &result {
                    Ok((503, _)) | Err(_) => Instant::now() < deadline,
                    Ok(_) => false,
                };
                if !retry {
                    return result.map_err(|why| self.failed(why));
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    }

    fn failed(&self, why: String) -> ClientError {
        ClientError::Exchange {
            url: self.url.clone(),
            why,
        }
    }

    async fn exchange(&self, body: Bytes) -> Result<(u16, Vec<u8>), String> {
        let tcp = TcpStream::connect((self.host.as_str(), self.port))
            .await
            .map_err(|e| format!("cannot connect: {e}"))?;
        match &self.tls {
            Some(tls) => {
                let name = ServerName::try_from(self.host.clone()).map_err(|e| e.to_string())?;
                let stream = tls
                    .connect(name, tcp)
                    .await
                    .map_err(|e| format!("TLS handshake: {e}"))?;
                self.send(TokioIo::new(stream), body).await
            }
            None => self.send(TokioIo::new(tcp), body).await,
        }
    }

    async fn send<T>(&self, io: TokioIo<T>, body: Bytes) -> Result<(u16, Vec<u8>), String>
    where
        T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let (mut sender, conn) = hyper::client::conn::http1::handshake(io)
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        let request = hyper::Request::post(self.path.as_str())
            .header(hyper::header::HOST, format!("{}:{}", self.host, self.port))
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .header(hyper::header::ACCEPT, "application/json")
            .body(Full::new(body))
            .map_err(|e| e.to_string())?;
        let response = sender.send_request(request).await.map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let bytes = response
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        Ok((status, bytes.to_vec()))
    }
}

/// A TLS connector trusting exactly the certificates in `ca`.
fn connector(ca: &Path) -> Result<tokio_rustls::TlsConnector, ClientError> {
    let fail = |why: String| ClientError::Ca {
        path: ca.to_path_buf(),
        why,
    };
    let pem = std::fs::read(ca).map_err(|e| fail(e.to_string()))?;
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&pem) {
        let cert = cert.map_err(|e| fail(format!("not PEM: {e}")))?;
        roots
            .add(cert)
            .map_err(|e| fail(format!("not a CA certificate: {e}")))?;
    }
    if roots.is_empty() {
        return Err(fail("no certificate in the file".into()));
    }
    let mut config =
        rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| fail(e.to_string()))?
            .with_root_certificates(roots)
            .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}
