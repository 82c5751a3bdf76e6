//! The `wasi:http/incoming-handler` export: `wasmtime serve -S cli podmut.wasm`.
//!
//! Answers `POST /validate` with an AdmissionReview response like `podmut serve` does, over the
//! plain HTTP that `wasmtime serve` speaks (TLS belongs in a host; see docs/hosts.md). Other paths get 404,
//! other methods on `/validate` 405, bodies over the input limit 413, a review that cannot be
//! judged 400 with the problem as text.

use std::io::{Read as _, Write as _};

use wasip2::http::types::{
    Fields, IncomingRequest, Method, OutgoingBody, OutgoingResponse, ResponseOutparam,
};

/// The route the API server is configured to call (`clientConfig.service.path`).
const VALIDATE_PATH: &str = "/validate";

/// Handle one request.
pub(crate) fn handle(request: &IncomingRequest, out: ResponseOutparam) {
    let path = request.path_with_query().unwrap_or_default();
    let path = path.split_once('?').map_or(path.as_str(), |(p, _)| p);
    if path != VALIDATE_PATH {
        return respond(
            out,
            404,
            "text/plain",
            &format!("podmut: no route {path}; POST AdmissionReviews to {VALIDATE_PATH}\n"),
        );
    }
    if !matches!(request.method(), Method::Post) {
        return respond(
            out,
            405,
            "text/plain",
            &format!("podmut: {VALIDATE_PATH} takes POST\n"),
        );
    }
    let settings = crate::settings_text();
    let limit = crate::input_limit(&settings);
    let declared = request
        .headers()
        .get("content-length")
        .first()
        .and_then(|v| std::str::from_utf8(v).ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit) {
        return respond(out, 413, "text/plain", &too_large(limit));
    }
    let body = match read_body(request, limit) {
        Ok(Some(body)) => body,
        Ok(None) => return respond(out, 413, "text/plain", &too_large(limit)),
        Err(message) => return respond(out, 400, "text/plain", &format!("podmut: {message}\n")),
    };
    let Ok(text) = String::from_utf8(body) else {
        return respond(
            out,
            400,
            "text/plain",
            "podmut: admission-review: the body is not UTF-8 text\n",
        );
    };
    match podmut_core::review(&text, &settings) {
        Ok(review) => respond(out, 200, "application/json", &review),
        Err(e) => respond(out, 400, "text/plain", &format!("podmut: {e}\n")),
    }
}

fn too_large(limit: u64) -> String {
    format!("podmut: admission-review: the body is larger than the {limit}-byte limit\n")
}

/// The whole body, or `None` when it exceeds `limit`.
fn read_body(request: &IncomingRequest, limit: u64) -> Result<Option<Vec<u8>>, String> {
    let body = request
        .consume()
        .map_err(|()| "admission-review: the request body was already taken".to_owned())?;
    let mut buf = Vec::new();
    {
        let stream = body
            .stream()
            .map_err(|()| "admission-review: cannot open the request body".to_owned())?;
        let mut stream = stream.take(limit.saturating_add(1));
        stream
            .read_to_end(&mut buf)
            .map_err(|e| format!("admission-review: cannot read the request body: {e}"))?;
        // The stream is a child of the body and must be dropped first.
    }
    drop(body);
    if u64::try_from(buf.len()).unwrap_or(u64::MAX) > limit {
        return Ok(None);
    }
    Ok(Some(buf))
}

fn respond(out: ResponseOutparam, status: u16, content_type: &str, body: &str) {
    let headers = Fields::new();
    // Both headers are well-formed constants/lengths; a refusal leaves them off, nothing worse.
    let _ = headers.set("content-type", &[content_type.as_bytes().to_vec()]);
    let _ = headers.set("content-length", &[body.len().to_string().into_bytes()]);
    let response = OutgoingResponse::new(headers);
    let _ = response.set_status_code(status);
    let Ok(outgoing) = response.body() else {
        ResponseOutparam::set(out, Ok(response));
        return;
    };
    ResponseOutparam::set(out, Ok(response));
    if let Ok(mut stream) = outgoing.write() {
        // A client that went away is not our failure to report.
        let _ = stream
            .write_all(body.as_bytes())
            .and_then(|()| std::io::Write::flush(&mut stream));
    }
    let _ = OutgoingBody::finish(outgoing, None);
}
