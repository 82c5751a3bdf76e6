//! The playground server (`podmut playground`): serves the browser pod-diff playground in `web/` —
//! the page, the component transpiled by jco, and the browser build of the WASI shim — over plain
//! HTTP on a local address. It never runs the component itself: the browser does.
//!
//! The files are embedded at build time (`host/build.rs`): the page's own sources always, the
//! transpiled component only when `web/pkg` was produced by `cargo xtask web` from exactly the
//! component this binary embeds. `--dir` serves a directory instead (for working on the page).

use std::borrow::Cow;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;

include!(concat!(env!("OUT_DIR"), "/web_assets.rs"));

/// Where the playground's files come from.
#[derive(Clone, Debug)]
pub enum AssetSource {
    /// The files embedded in this binary.
    Embedded,
    /// A directory laid out like `web/` (with `pkg/` from `cargo xtask web`).
    Dir(PathBuf),
}

impl AssetSource {
    /// Why the page cannot run the component from this source, or `None` when it can.
    pub fn missing(&self) -> Option<String> {
        match self {
            AssetSource::Embedded if !WEB_PKG_MISSING.is_empty() => Some(WEB_PKG_MISSING.to_owned()),
            AssetSource::Embedded => None,
            AssetSource::Dir(dir) if !dir.join("pkg").join("podmut.js").is_file() => Some(format!(
                "{} has no pkg/podmut.js (run `cargo xtask web`)",
                dir.display()
            )),
            AssetSource::Dir(_) => None,
        }
    }

    /// The bytes of the file at `path` (relative, `/`-separated), if there is one.
    pub fn get(&self, path: &str) -> Option<Cow<'static, [u8]>> {
        match self {
            AssetSource::Embedded => WEB_ASSETS
                .iter()
                .find(|(name, _)| *name == path)
                .map(|(_, bytes)| Cow::Borrowed(*bytes)),
            AssetSource::Dir(dir) => {
                let rel = Path::new(path);
                // Only plain names below the directory: no `..`, no absolute paths.
                if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
                    return None;
                }
                std::fs::read(dir.join(rel)).ok().map(Cow::Owned)
            }
        }
    }
}

/// The content type browsers need for each kind of file (modules and `compileStreaming` check it).
pub fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("wasm") => "application/wasm",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

/// Answer one request: `GET`/`HEAD` of a file, `/` is `index.html`; anything else 404 or 405.
pub fn respond(source: &AssetSource, method: &Method, uri_path: &str) -> Response<Full<Bytes>> {
    let path = match uri_path.trim_start_matches('/') {
        "" => "index.html",
        p => p,
    };
    let plain = |status: StatusCode, text: String| {
        let mut r = Response::new(Full::new(Bytes::from(text)));
        *r.status_mut() = status;
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        r
    };
    if method != Method::GET && method != Method::HEAD {
        let mut r = plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "the playground serves GET only\n".into(),
        );
        r.headers_mut()
            .insert(header::ALLOW, header::HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    let Some(bytes) = source.get(path) else {
        return plain(StatusCode::NOT_FOUND, format!("not found: /{path}\n"));
    };
    let len = bytes.len();
    let body = if method == Method::HEAD {
        Bytes::new()
    } else {
        match bytes {
            Cow::Borrowed(b) => Bytes::from_static(b),
            Cow::Owned(v) => Bytes::from(v),
        }
    };
    let mut r = Response::new(Full::new(body));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type(path)),
    );
    h.insert(header::CONTENT_LENGTH, header::HeaderValue::from(len));
    h.insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-cache"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        header::HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        header::HeaderValue::from_static("no-referrer"),
    );
    r
}

/// Serve until the process ends; `on_listen` gets the bound address (port 0 picks one).
pub fn serve(addr: &str, source: AssetSource, on_listen: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_io()
        .build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        on_listen(listener.local_addr()?);
        let source = Arc::new(source);
        loop {
            // A refused or reset connection is the client's problem, not the server's.
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let source = source.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req: Request<Incoming>| {
                    let response = respond(&source, req.method(), req.uri().path());
                    async move { Ok::<_, Infallible>(response) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn the_page_is_embedded_and_served_with_browser_content_types() {
        let src = AssetSource::Embedded;
        let r = respond(&src, &Method::GET, "/");
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.headers()[header::CONTENT_TYPE], "text/html; charset=utf-8");
        let r = respond(&src, &Method::GET, "/app.js");
        assert_eq!(
            r.headers()[header::CONTENT_TYPE],
            "text/javascript; charset=utf-8"
        );
        assert_eq!(content_type("pkg/podmut.core.wasm"), "application/wasm");
    }

    #[test]
    fn unknown_files_are_404_and_writes_405() {
        let src = AssetSource::Embedded;
        assert_eq!(
            respond(&src, &Method::GET, "/nope.js").status(),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            respond(&src, &Method::POST, "/").status(),
            StatusCode::METHOD_NOT_ALLOWED
        );
    }

    #[test]
    fn a_directory_source_never_leaves_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("index.html"), "hi").unwrap();
        let src = AssetSource::Dir(dir.path().to_path_buf());
        assert_eq!(respond(&src, &Method::GET, "/").status(), StatusCode::OK);
        for evil in ["/../etc/passwd", "/a/../../x", "//etc/passwd"] {
            assert_eq!(
                respond(&src, &Method::GET, evil).status(),
                StatusCode::NOT_FOUND,
                "{evil}"
            );
        }
        assert!(src.missing().is_some(), "no pkg/ in the directory");
    }

    #[test]
    fn an_embedded_pkg_is_the_embedded_component() {
        if let Some(bytes) = AssetSource::Embedded.get("pkg/podmut.wasm") {
            assert!(
                *bytes == *crate::runtime::EMBEDDED_COMPONENT,
                "web/pkg must be transpiled from the exact component bytes"
            );
            assert!(AssetSource::Embedded.get("pkg/podmut.js").is_some());
        } else {
            assert!(AssetSource::Embedded.missing().is_some());
        }
    }
}
