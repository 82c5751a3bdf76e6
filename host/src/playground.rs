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

/// One embedded playground file.
pub(crate) struct WebAsset {
    /// Its path under `web/`, `/`-separated.
    path: &'static str,
    /// Its bytes.
    bytes: &'static [u8],
    /// The same bytes gzip-encoded (build.rs, level 9), where that is worth serving.
    gzip: Option<&'static [u8]>,
}

include!(concat!(env!("OUT_DIR"), "/web_assets.rs"));

/// A file to serve: its bytes, and their gzip encoding when the source has one.
#[derive(Debug)]
pub struct Asset {
    /// The file's bytes.
    pub bytes: Cow<'static, [u8]>,
    /// The same file gzip-encoded (embedded files only: `--dir` serves files as they are).
    pub gzip: Option<&'static [u8]>,
}

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

    /// The file at `path` (relative, `/`-separated), if there is one.
    pub fn get(&self, path: &str) -> Option<Asset> {
        match self {
            AssetSource::Embedded => WEB_ASSETS.iter().find(|a| a.path == path).map(|a| Asset {
                bytes: Cow::Borrowed(a.bytes),
                gzip: a.gzip,
            }),
            AssetSource::Dir(dir) => {
                let rel = Path::new(path);
                // Only plain names below the directory: no `..`, no absolute paths.
                if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
                    return None;
                }
                let bytes = std::fs::read(dir.join(rel)).ok()?;
                Some(Asset {
                    bytes: Cow::Owned(bytes),
                    gzip: None,
                })
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

/// Whether an `Accept-Encoding` header value accepts gzip (RFC 9110 §12.5.3): `gzip` (or its
/// alias `x-gzip`) or `*` with a non-zero weight; an explicit `gzip;q=0` refuses it even when `*`
/// allows the rest. Hand-written: hyper and http parse no `Accept-Encoding`, and tower-http's
/// parser is private to its compression layer, which encodes per response (this server sends
/// bytes encoded once at build time).
pub fn accepts_gzip(accept_encoding: &str) -> bool {
    let mut star = None;
    for item in accept_encoding.split(',') {
        let mut parts = item.split(';');
        let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let weight = parts
            .filter_map(|p| p.trim().split_once('='))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case("q"))
            .map_or(Some(1.0), |(_, v)| v.trim().parse::<f32>().ok());
        // A weight that does not parse is no acceptance.
        let accepted = weight.is_some_and(|q| q > 0.0);
        match coding.as_str() {
            "gzip" | "x-gzip" => return accepted,
            "*" => star = Some(accepted),
            _ => {}
        }
    }
    star.unwrap_or(false)
}

/// Answer one request: `GET`/`HEAD` of a file, `/` is `index.html`; anything else 404 or 405.
/// `accept_encoding` is the request's `Accept-Encoding` header: a file with a gzip encoding is
/// sent gzip-encoded to a client that accepts it (`Content-Encoding: gzip`), else as it is.
pub fn respond(
    source: &AssetSource,
    method: &Method,
    uri_path: &str,
    accept_encoding: Option<&str>,
) -> Response<Full<Bytes>> {
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
    let Some(asset) = source.get(path) else {
        return plain(StatusCode::NOT_FOUND, format!("not found: /{path}\n"));
    };
    let gzip = asset.gzip.filter(|_| accept_encoding.is_some_and(accepts_gzip));
    let body = match (gzip, asset.bytes) {
        (Some(gz), _) => Bytes::from_static(gz),
        (None, Cow::Borrowed(b)) => Bytes::from_static(b),
        (None, Cow::Owned(v)) => Bytes::from(v),
    };
    let len = body.len();
    let body = if method == Method::HEAD {
        Bytes::new()
    } else {
        body
    };
    let mut r = Response::new(Full::new(body));
    let h = r.headers_mut();
    if asset.gzip.is_some() {
        // Caches must key this file on the request's Accept-Encoding.
        h.insert(header::VARY, header::HeaderValue::from_static("accept-encoding"));
    }
    if gzip.is_some() {
        h.insert(header::CONTENT_ENCODING, header::HeaderValue::from_static("gzip"));
    }
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
                    let accept = req
                        .headers()
                        .get(header::ACCEPT_ENCODING)
                        .and_then(|v| v.to_str().ok());
                    let response = respond(&source, req.method(), req.uri().path(), accept);
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
        let r = respond(&src, &Method::GET, "/", None);
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.headers()[header::CONTENT_TYPE], "text/html; charset=utf-8");
        let r = respond(&src, &Method::GET, "/app.js", None);
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
            respond(&src, &Method::GET, "/nope.js", None).status(),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            respond(&src, &Method::POST, "/", None).status(),
            StatusCode::METHOD_NOT_ALLOWED
        );
    }

    #[test]
    fn a_directory_source_never_leaves_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("index.html"), "hi").unwrap();
        let src = AssetSource::Dir(dir.path().to_path_buf());
        assert_eq!(respond(&src, &Method::GET, "/", None).status(), StatusCode::OK);
        for evil in ["/../etc/passwd", "/a/../../x", "//etc/passwd"] {
            assert_eq!(
                respond(&src, &Method::GET, evil, Some("gzip")).status(),
                StatusCode::NOT_FOUND,
                "{evil}"
            );
        }
        assert!(src.missing().is_some(), "no pkg/ in the directory");
    }

    #[test]
    fn an_embedded_pkg_is_the_embedded_component() {
        if let Some(asset) = AssetSource::Embedded.get("pkg/podmut.wasm") {
            assert!(
                *asset.bytes == *crate::runtime::EMBEDDED_COMPONENT,
                "web/pkg must be transpiled from the exact component bytes"
            );
            assert!(AssetSource::Embedded.get("pkg/podmut.js").is_some());
        } else {
            assert!(AssetSource::Embedded.missing().is_some());
        }
    }

    fn gunzip(bytes: &[u8]) -> Vec<u8> {
        use std::io::Read;
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes).read_to_end(&mut out).unwrap();
        out
    }

    fn body(r: Response<Full<Bytes>>) -> Vec<u8> {
        use http_body_util::BodyExt;
        let collected = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(r.into_body().collect())
            .unwrap();
        collected.to_bytes().to_vec()
    }

    #[test]
    fn accept_encoding_is_read_with_its_weights() {
        for yes in [
            "gzip",
            "gzip, deflate, br",
            "br;q=1.0, GZIP;q=0.5",
            "x-gzip",
            "*",
            "deflate, *;q=0.1",
            " gzip ; q=1 ",
        ] {
            assert!(accepts_gzip(yes), "{yes}");
        }
        for no in [
            "",
            "identity",
            "br, deflate",
            "gzip;q=0",
            "gzip;q=0.000",
            "*;q=0",
            "*, gzip;q=0",
            "gzip;q=zero",
            "gzipx",
        ] {
            assert!(!accepts_gzip(no), "{no}");
        }
    }

    #[test]
    fn every_gzip_encoding_decodes_to_its_file_and_is_served_only_when_accepted() {
        let src = AssetSource::Embedded;
        // The page's own files are embedded whether or not web/pkg was built; app.js compresses.
        assert!(src.get("app.js").and_then(|a| a.gzip).is_some());
        for asset in WEB_ASSETS {
            if let Some(gz) = asset.gzip {
                assert_eq!(gunzip(gz), asset.bytes, "{}", asset.path);
                assert!(gz.len() < asset.bytes.len(), "{}", asset.path);
            }
            let url = format!("/{}", asset.path);
            let r = respond(&src, &Method::GET, &url, Some("gzip, deflate"));
            assert_eq!(r.status(), StatusCode::OK);
            let encoded = r.headers().get(header::CONTENT_ENCODING).cloned();
            assert_eq!(encoded.is_some(), asset.gzip.is_some(), "{}", asset.path);
            let len: usize = r.headers()[header::CONTENT_LENGTH]
                .to_str()
                .unwrap()
                .parse()
                .unwrap();
            let got = body(r);
            assert_eq!(len, got.len(), "{}", asset.path);
            let decoded = if encoded.is_some() { gunzip(&got) } else { got };
            assert_eq!(decoded, asset.bytes, "{}", asset.path);
            // Not accepted: the file as it is.
            for refuse in [None, Some("br"), Some("gzip;q=0")] {
                let r = respond(&src, &Method::GET, &url, refuse);
                assert!(r.headers().get(header::CONTENT_ENCODING).is_none(), "{refuse:?}");
                assert_eq!(body(r), asset.bytes, "{} {refuse:?}", asset.path);
            }
        }
    }

    #[test]
    fn head_reports_the_length_of_the_encoding_get_would_send() {
        let src = AssetSource::Embedded;
        let gz = src.get("app.js").and_then(|a| a.gzip).unwrap();
        let r = respond(&src, &Method::HEAD, "/app.js", Some("gzip"));
        assert_eq!(r.headers()[header::CONTENT_ENCODING], "gzip");
        assert_eq!(r.headers()[header::VARY], "accept-encoding");
        assert_eq!(r.headers()[header::CONTENT_LENGTH], gz.len().to_string().as_str());
        assert!(body(r).is_empty());
    }
}
