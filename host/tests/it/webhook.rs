//! The admission webhook: every route and failure mapping through the router (no socket), a
//! deliberately misbehaving component (trap, deadline, out of memory, nonsense answers), and real
//! TLS sockets on 127.0.0.1 (HTTP/1.1 and HTTP/2, certificate rotation, client certificates,
//! graceful drain).

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use podmut::webhook::{self, CertSource, SelfSigned, TlsSpec, TlsState, Webhook, WebhookOptions};
use podmut::{ComponentSource, Runtime, RuntimeOptions};
use rustls::pki_types::ServerName;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

use crate::support::{
    allowed_review, cert_der, client_config, denied_review, embedded, https, pod, review, runtime_options,
};

// ------------------------------------------------------------------------------------------
// Fixtures

/// A review the misbehaving component reacts to (the marker is the Pod's name).
fn marked_review(uid: &str, marker: &str) -> Value {
    let p = pod(marker, &[("app", "nginx")]);
    review(uid, "", &p, &p)
}

fn misbehaving() -> Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        Runtime::load(
            &ComponentSource::Bytes(Arc::new(podmut_misbehave::COMPONENT.to_vec())),
            RuntimeOptions {
                deadline: Duration::from_millis(300),
                memory_limit: 16 << 20,
                ..runtime_options()
            },
        )
        .unwrap()
    })
    .clone()
}

fn webhook_with(runtime: Runtime) -> Webhook {
    Webhook::with_runtime(
        WebhookOptions {
            workers: 2,
            ..WebhookOptions::default()
        },
        runtime,
    )
}

struct Reply {
    status: StatusCode,
    content_type: String,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

async fn call(w: &Webhook, req: Request<Body>) -> Reply {
    let resp = webhook::router(w.clone()).oneshot(req).await.unwrap();
    let status = resp.status();
    let content_type = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let body = String::from_utf8(resp.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    Reply {
        status,
        content_type,
        body,
    }
}

fn post(body: impl Into<Body>) -> Request<Body> {
    Request::post("/validate")
        .header(header::CONTENT_TYPE, "application/json")
        .body(body.into())
        .unwrap()
}

fn get(path: &str) -> Request<Body> {
    Request::get(path).body(Body::empty()).unwrap()
}

async fn metrics_text(w: &Webhook) -> String {
    call(w, get("/metrics")).await.body
}

/// Wait (up to 10 s) until `busy` workers of `w` are evaluating a review.
async fn until_busy(w: &Webhook, busy: usize) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while w.busy_workers() < busy {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{busy} worker(s) busy within 10 s: {} are",
            w.busy_workers()
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

// ------------------------------------------------------------------------------------------
// Routes

#[tokio::test]
async fn validate_denies_in_the_api_servers_shape() {
    let w = webhook_with(embedded());
    let r = call(&w, post(denied_review("uid-deny").to_string())).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.content_type, "application/json");
    let v = r.json();
    assert_eq!(v["apiVersion"], "admission.k8s.io/v1");
    assert_eq!(v["kind"], "AdmissionReview");
    assert_eq!(v["response"]["uid"], "uid-deny");
    assert_eq!(v["response"]["allowed"], false);
    let status = &v["response"]["status"];
    assert_eq!(status["code"], 422);
    assert_eq!(status["reason"], "Invalid");
    assert!(
        status["message"]
            .as_str()
            .unwrap()
            .starts_with("Pod \"web\" is invalid: spec.containers: Forbidden"),
        "{status}"
    );
    assert_eq!(status["details"]["causes"][0]["field"], "spec.containers");
    assert_eq!(status["details"]["causes"][0]["reason"], "FieldValueForbidden");
    let m = metrics_text(&w).await;
    assert!(
        m.contains(
            r#"podmut_admission_requests_total{subresource="none",verdict="denied",dry_run="false"} 1"#
        ),
        "{m}"
    );
    assert!(
        m.contains(r#"podmut_admission_request_duration_seconds_count{subresource="none"} 1"#),
        "{m}"
    );
}

#[tokio::test]
async fn validate_allows_and_honours_dry_run() {
    let w = webhook_with(embedded());
    let r = call(&w, post(allowed_review("uid-ok").to_string())).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["response"]["allowed"], true);
    assert_eq!(r.json()["response"]["uid"], "uid-ok");
    // A dry run gets the same verdict (podmut has no side effects) and is counted apart.
    let mut dry = denied_review("uid-dry");
    dry["request"]["dryRun"] = json!(true);
    let r = call(&w, post(dry.to_string())).await;
    assert_eq!(r.json()["response"]["allowed"], false);
    let m = metrics_text(&w).await;
    assert!(
        m.contains(r#"{subresource="none",verdict="allowed",dry_run="false"} 1"#),
        "{m}"
    );
    assert!(
        m.contains(r#"{subresource="none",verdict="denied",dry_run="true"} 1"#),
        "{m}"
    );
}

#[tokio::test]
async fn unknown_subresources_follow_the_settings() {
    let mut binding = allowed_review("uid-binding");
    binding["request"]["subResource"] = json!("binding");
    let w = webhook_with(embedded());
    let v = call(&w, post(binding.to_string())).await.json();
    assert_eq!(v["response"]["allowed"], true);
    assert!(
        v["response"]["warnings"][0]
            .as_str()
            .unwrap()
            .contains("pods/binding"),
        "{v}"
    );
    assert!(
        metrics_text(&w)
            .await
            .contains(r#"{subresource="other",verdict="allowed",dry_run="false"} 1"#)
    );

    let strict = Webhook::with_runtime(
        WebhookOptions {
            settings: "unknownSubresource: deny".into(),
            ..WebhookOptions::default()
        },
        embedded(),
    );
    let v = call(&strict, post(binding.to_string())).await.json();
    assert_eq!(v["response"]["allowed"], false);
    assert_eq!(v["response"]["status"]["code"], 403);
}

#[tokio::test]
async fn unreadable_pod_is_denied_with_bad_request() {
    let mut bad = allowed_review("uid-bad");
    bad["request"]["object"]["spec"]["containers"][0]["name"] = json!(42);
    let w = webhook_with(embedded());
    let r = call(&w, post(bad.to_string())).await;
    assert_eq!(
        r.status,
        StatusCode::OK,
        "a readable review always gets a review back"
    );
    let v = r.json();
    assert_eq!(v["response"]["uid"], "uid-bad");
    assert_eq!(v["response"]["allowed"], false);
    assert_eq!(v["response"]["status"]["code"], 400);
    assert_eq!(v["response"]["status"]["reason"], "BadRequest");
    let msg = v["response"]["status"]["message"].as_str().unwrap();
    assert!(msg.contains("spec.containers[0].name"), "{msg}");
    assert!(metrics_text(&w).await.contains(r#"verdict="invalid""#));
}

#[tokio::test]
async fn malformed_reviews_get_400_with_a_clear_message() {
    let w = webhook_with(embedded());
    for (body, needle) in [
        ("{not json".to_owned(), "not an AdmissionReview"),
        (
            json!({"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview", "request": {"uid": "u"}}).to_string(),
            "expected apiVersion \"admission.k8s.io/v1\"",
        ),
        (
            json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}).to_string(),
            "request: Required value",
        ),
        (
            json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"operation": "UPDATE"}}).to_string(),
            "request.uid: Required value",
        ),
    ] {
        let r = call(&w, post(body)).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST);
        let v = r.json();
        assert_eq!(v["kind"], "Status");
        assert_eq!(v["code"], 400);
        assert!(v["message"].as_str().unwrap().contains(needle), "{v}");
    }
    assert!(
        metrics_text(&w)
            .await
            .contains(r#"podmut_http_rejections_total{reason="malformed"} 4"#)
    );
}

#[tokio::test]
async fn bodies_over_the_cap_get_413() {
    let w = webhook_with(embedded());
    // Declared too large: refused before reading.
    let req = Request::post("/validate")
        .header(header::CONTENT_TYPE, "application/json")
        .header(
            header::CONTENT_LENGTH,
            (webhook::DEFAULT_MAX_BODY_BYTES + 1).to_string(),
        )
        .body(Body::from("{}"))
        .unwrap();
    let r = call(&w, req).await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(r.json()["reason"], "RequestEntityTooLarge");
    // Not declared: cut off while reading.
    let r = call(&w, post(" ".repeat(webhook::DEFAULT_MAX_BODY_BYTES + 1))).await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    // Exactly at the cap is read (and then judged as JSON).
    let r = call(&w, post(" ".repeat(webhook::DEFAULT_MAX_BODY_BYTES))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(
        metrics_text(&w)
            .await
            .contains(r#"podmut_http_rejections_total{reason="too_large"} 2"#)
    );
}

#[tokio::test]
async fn wrong_media_type_gets_415() {
    let w = webhook_with(embedded());
    let req = Request::post("/validate")
        .header(header::CONTENT_TYPE, "application/yaml")
        .body(Body::from(allowed_review("u").to_string()))
        .unwrap();
    let r = call(&w, req).await;
    assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    // JSON with parameters is fine.
    let req = Request::post("/validate")
        .header(header::CONTENT_TYPE, "application/json; charset=utf-8")
        .body(Body::from(allowed_review("u").to_string()))
        .unwrap();
    assert_eq!(call(&w, req).await.status, StatusCode::OK);
}

#[tokio::test]
async fn health_readiness_and_routing() {
    let w = Webhook::new(WebhookOptions::default());
    assert_eq!(call(&w, get("/healthz")).await.status, StatusCode::OK);
    let r = call(&w, get("/readyz")).await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(r.body.contains("compiling"));
    // Not ready: reviews are refused with 503 (the API server fails closed).
    let r = call(&w, post(allowed_review("u").to_string())).await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE);
    w.set_runtime(embedded());
    assert_eq!(call(&w, get("/readyz")).await.status, StatusCode::OK);
    w.start_draining();
    let r = call(&w, get("/readyz")).await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(r.body.contains("shutting down"));
    // Draining still answers reviews.
    assert_eq!(
        call(&w, post(allowed_review("u").to_string())).await.status,
        StatusCode::OK
    );
    assert_eq!(call(&w, get("/nope")).await.status, StatusCode::NOT_FOUND);
    assert_eq!(
        call(&w, get("/validate")).await.status,
        StatusCode::METHOD_NOT_ALLOWED
    );
    let m = call(&w, get("/metrics")).await;
    assert!(m.content_type.starts_with("application/openmetrics-text"));
    assert!(
        m.body
            .contains(r#"podmut_http_rejections_total{reason="not_ready"} 1"#),
        "{}",
        m.body
    );
    assert!(m.body.ends_with("# EOF\n"));
}

// ------------------------------------------------------------------------------------------
// A misbehaving component: the server survives and fails closed.

async fn expect_failure(w: &Webhook, marker: &str, reason: &str) -> Value {
    let r = call(w, post(marked_review("uid-bad-guest", marker).to_string())).await;
    assert_eq!(r.status, StatusCode::OK, "{marker}: {}", r.body);
    let v = r.json();
    assert_eq!(v["response"]["uid"], "uid-bad-guest");
    assert_eq!(v["response"]["allowed"], false, "{marker}: fails closed");
    assert_eq!(v["response"]["status"]["code"], 500, "{marker}");
    assert_eq!(v["response"]["status"]["reason"], "InternalError", "{marker}");
    let m = metrics_text(w).await;
    assert!(
        m.contains(&format!(
            r#"podmut_component_failures_total{{reason="{reason}"}} 1"#
        )),
        "{marker}: {m}"
    );
    v
}

#[tokio::test]
async fn trap_timeout_and_oom_deny_and_the_server_keeps_serving() {
    let w = webhook_with(misbehaving());
    let v = expect_failure(&w, "podmut-misbehave-panic", "trap").await;
    assert!(
        v["response"]["status"]["message"]
            .as_str()
            .unwrap()
            .contains("trapped")
    );
    let v = expect_failure(&w, "podmut-misbehave-loop", "timeout").await;
    assert!(
        v["response"]["status"]["message"]
            .as_str()
            .unwrap()
            .contains("ran out of time")
    );
    let v = expect_failure(&w, "podmut-misbehave-oom", "out_of_memory").await;
    assert!(
        v["response"]["status"]["message"]
            .as_str()
            .unwrap()
            .contains("ran out of memory")
    );
    expect_failure(&w, "podmut-misbehave-garbage", "bad_response").await;
    // Another request's uid is nonsense too (counted again under bad_response).
    let r = call(
        &w,
        post(marked_review("uid-x", "podmut-misbehave-wrong-uid").to_string()),
    )
    .await;
    assert_eq!(r.json()["response"]["uid"], "uid-x");
    assert_eq!(r.json()["response"]["allowed"], false);
    // After all that, a well-behaved request on the same server still works.
    let r = call(&w, post(marked_review("uid-fine", "fine").to_string())).await;
    assert_eq!(r.json()["response"]["allowed"], true);
    assert_eq!(r.json()["response"]["uid"], "uid-fine");
    let m = metrics_text(&w).await;
    assert!(
        m.contains(r#"{subresource="none",verdict="error",dry_run="false"} 5"#),
        "{m}"
    );
    assert!(m.contains("podmut_in_flight_requests 0"), "{m}");
}

#[tokio::test]
async fn no_request_sees_the_memory_an_earlier_request_wrote() {
    // The misbehaving component counts its calls in a static of its data segment and marks 64 KiB
    // of zeroed memory; a fresh instance per request (the pooling allocator restoring each reused
    // slot) must show neither to the next request.
    const CLEAN: &str = "earlier calls in this instance: 0, marked words: 0";
    // Pooled as `podmut serve` runs it, with so few slots that every request reuses one.
    let pooled = Runtime::load(
        &ComponentSource::Bytes(Arc::new(podmut_misbehave::COMPONENT.to_vec())),
        RuntimeOptions {
            pooling: true,
            max_instances: 2,
            ..runtime_options()
        },
    )
    .unwrap();
    let w = webhook_with(pooled.clone());
    for uid in ["uid-1", "uid-2", "uid-3", "uid-4"] {
        let r = call(
            &w,
            post(marked_review(uid, "podmut-misbehave-remember").to_string()),
        )
        .await;
        let v = r.json();
        assert_eq!(v["response"]["allowed"], true, "{}", r.body);
        assert_eq!(v["response"]["warnings"], json!([CLEAN]), "{uid}");
    }
    // One instance kept for two calls does remember: the check above can fail.
    let text = marked_review("uid-5", "podmut-misbehave-remember").to_string();
    let mut kept = pooled.instance().unwrap();
    let first: Value = serde_json::from_str(&kept.review(&text, "").unwrap()).unwrap();
    let second: Value = serde_json::from_str(&kept.review(&text, "").unwrap()).unwrap();
    assert_eq!(first["response"]["warnings"], json!([CLEAN]));
    assert_eq!(
        second["response"]["warnings"],
        json!(["earlier calls in this instance: 1, marked words: 16384"])
    );
}

#[tokio::test]
async fn overload_is_denied_with_429() {
    let w = Webhook::with_runtime(
        WebhookOptions {
            workers: 1,
            queue_timeout: Duration::from_millis(50),
            ..WebhookOptions::default()
        },
        misbehaving(),
    );
    // One request holds the only worker for the whole deadline; the next cannot get one in time.
    let slow = tokio::spawn({
        let w = w.clone();
        async move {
            call(
                &w,
                post(marked_review("uid-slow", "podmut-misbehave-loop").to_string()),
            )
            .await
        }
    });
    // The slow review holds the worker (for the 300 ms deadline) before the next is sent.
    until_busy(&w, 1).await;
    let v = call(&w, post(marked_review("uid-queued", "fine").to_string()))
        .await
        .json();
    assert_eq!(v["response"]["allowed"], false);
    assert_eq!(v["response"]["status"]["code"], 429);
    assert_eq!(v["response"]["status"]["details"]["retryAfterSeconds"], 1);
    assert_eq!(slow.await.unwrap().json()["response"]["status"]["code"], 500);
    assert!(metrics_text(&w).await.contains(r#"verdict="overloaded""#));
}

// ------------------------------------------------------------------------------------------
// Real sockets

struct Server {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<()>,
}

impl Server {
    async fn start(w: Webhook, tls: Arc<TlsState>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let done = tokio::spawn(webhook::server::run(
            w,
            listener,
            tls,
            Duration::from_secs(10),
            Duration::from_secs(5),
            async move {
                let _ = stopped.await;
            },
        ));
        Self {
            addr,
            stop: Some(stop),
            done,
        }
    }

    async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        tokio::time::timeout(Duration::from_secs(15), self.done)
            .await
            .expect("the server drains and stops")
            .unwrap();
    }
}

fn memory_tls(s: &SelfSigned, client_ca: Option<std::path::PathBuf>) -> Arc<TlsState> {
    Arc::new(
        TlsState::load(TlsSpec {
            cert: CertSource::Memory {
                cert_pem: s.cert_pem.clone(),
                key_pem: s.key_pem.clone(),
            },
            client_ca,
        })
        .unwrap(),
    )
}

#[tokio::test]
async fn https_on_loopback_speaks_http1_and_http2() {
    let certs = SelfSigned::generate(&["localhost", "127.0.0.1"]).unwrap();
    let server = Server::start(webhook_with(embedded()), memory_tls(&certs, None)).await;
    for alpn in [&b"http/1.1"[..], b"h2"] {
        let x = https(
            server.addr,
            client_config(&[&certs.ca_pem], alpn, None),
            "POST",
            "/validate",
            &denied_review("uid-tls").to_string(),
        )
        .await
        .unwrap();
        assert_eq!(x.status, StatusCode::OK);
        assert_eq!(x.body["response"]["uid"], "uid-tls");
        assert_eq!(x.body["response"]["status"]["code"], 422);
        let x = https(
            server.addr,
            client_config(&[&certs.ca_pem], alpn, None),
            "GET",
            "/healthz",
            "",
        )
        .await
        .unwrap();
        assert_eq!(x.status, StatusCode::OK);
    }
    // A client that does not trust the CA cannot talk to it.
    let other = SelfSigned::generate(&["localhost"]).unwrap();
    assert!(
        https(
            server.addr,
            client_config(&[&other.ca_pem], b"http/1.1", None),
            "GET",
            "/healthz",
            ""
        )
        .await
        .is_err()
    );
    server.stop().await;
}

#[tokio::test]
async fn client_certificates_are_required_with_a_client_ca() {
    let certs = SelfSigned::generate(&["localhost"]).unwrap();
    // The client CA and a client certificate it signed.
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::DigitalSignature,
    ];
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let mut client_params = rcgen::CertificateParams::new(vec!["kube-apiserver".to_owned()]).unwrap();
    client_params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
    let client_key = rcgen::KeyPair::generate().unwrap();
    let client_cert = client_params.signed_by(&client_key, &ca).unwrap();
    let dir = crate::support::tempdir();
    let ca_file = dir.path().join("client-ca.crt");
    std::fs::write(&ca_file, ca.pem()).unwrap();

    let server = Server::start(webhook_with(embedded()), memory_tls(&certs, Some(ca_file))).await;
    let anonymous = https(
        server.addr,
        client_config(&[&certs.ca_pem], b"http/1.1", None),
        "GET",
        "/healthz",
        "",
    )
    .await;
    assert!(anonymous.is_err(), "a client without a certificate is refused");
    let key_pem = client_key.serialize_pem();
    let with_cert = https(
        server.addr,
        client_config(
            &[&certs.ca_pem],
            b"http/1.1",
            Some((&client_cert.pem(), &key_pem)),
        ),
        "POST",
        "/validate",
        &allowed_review("uid-mtls").to_string(),
    )
    .await
    .unwrap();
    assert_eq!(with_cert.body["response"]["allowed"], true);
    server.stop().await;
}

#[tokio::test]
async fn rotated_certificate_files_are_served_without_a_restart() {
    let dir = crate::support::tempdir();
    let (cert_file, key_file) = (dir.path().join("tls.crt"), dir.path().join("tls.key"));
    let first = SelfSigned::generate(&["localhost"]).unwrap();
    let second = SelfSigned::generate(&["localhost"]).unwrap();
    std::fs::write(&cert_file, &first.cert_pem).unwrap();
    std::fs::write(&key_file, &first.key_pem).unwrap();
    let tls = Arc::new(
        TlsState::load(TlsSpec {
            cert: CertSource::Files {
                cert: cert_file.clone(),
                key: key_file.clone(),
            },
            client_ca: None,
        })
        .unwrap(),
    );
    let w = webhook_with(embedded());
    let hook = w.clone();
    let reloader = webhook::tls::spawn_reloader(tls.clone(), Duration::from_millis(200), move |r| {
        let result = if r.is_ok() {
            webhook::metrics::ReloadResult::success
        } else {
            webhook::metrics::ReloadResult::failure
        };
        hook.metrics()
            .tls_reloads
            .get_or_create(&webhook::metrics::ResultLabels { result })
            .inc();
    });
    let server = Server::start(w.clone(), tls).await;
    let both = || client_config(&[&first.ca_pem, &second.ca_pem], b"http/1.1", None);
    let x = https(server.addr, both(), "GET", "/healthz", "").await.unwrap();
    assert_eq!(x.server_cert, cert_der(&first.cert_pem));

    // cert-manager style: the key, then the certificate (a window where they do not match).
    std::fs::write(&key_file, &second.key_pem).unwrap();
    std::fs::write(&cert_file, &second.cert_pem).unwrap();
    let mut rotated = false;
    for _ in 0..100 {
        let x = https(server.addr, both(), "GET", "/healthz", "").await.unwrap();
        if x.server_cert == cert_der(&second.cert_pem) {
            rotated = true;
            break;
        }
        assert_eq!(x.server_cert, cert_der(&first.cert_pem), "never a mix of the two");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(rotated, "the new certificate is served within 10 s");
    let m = metrics_text(&w).await;
    assert!(m.contains(r#"podmut_tls_reloads_total{result="success"}"#), "{m}");
    reloader.abort();
    server.stop().await;
}

#[tokio::test]
async fn shutdown_drains_in_flight_requests() {
    let certs = SelfSigned::generate(&["localhost"]).unwrap();
    let w = webhook_with(misbehaving());
    let server = Server::start(w.clone(), memory_tls(&certs, None)).await;
    let addr = server.addr;
    let ca = certs.ca_pem.clone();
    // In flight for the whole 300 ms deadline.
    let slow = tokio::spawn(async move {
        https(
            addr,
            client_config(&[&ca], b"http/1.1", None),
            "POST",
            "/validate",
            &marked_review("uid-drain", "podmut-misbehave-loop").to_string(),
        )
        .await
    });
    // The server stops only once the request is being evaluated.
    until_busy(&w, 1).await;
    server.stop().await;
    let x = slow.await.unwrap().expect("the in-flight request is answered");
    assert_eq!(x.body["response"]["uid"], "uid-drain");
    assert_eq!(x.body["response"]["allowed"], false);
    assert!(!w.is_ready(), "draining servers report not ready");
    assert!(TcpStream::connect(addr).await.is_err(), "no longer accepting");
}

// ------------------------------------------------------------------------------------------
// The probe port and oversized bodies over HTTP/2, on real sockets

/// One plain-HTTP request (HTTP/1.1, or HTTP/2 with prior knowledge) on a fresh connection.
async fn plain_http(addr: SocketAddr, h2: bool, method: &str, path: &str) -> (StatusCode, String) {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let io = hyper_util::rt::TokioIo::new(tcp);
    let req = hyper::Request::builder()
        .method(method)
        .uri(format!("http://{addr}{path}"))
        .header(header::HOST, addr.to_string())
        .body(http_body_util::Empty::<axum::body::Bytes>::new())
        .unwrap();
    let resp = if h2 {
        let (mut sender, conn) =
            hyper::client::conn::http2::handshake(hyper_util::rt::TokioExecutor::new(), io)
                .await
                .unwrap();
        tokio::spawn(conn);
        sender.send_request(req).await.unwrap()
    } else {
        let (mut sender, conn) = hyper::client::conn::http1::handshake(io).await.unwrap();
        tokio::spawn(conn);
        sender.send_request(req).await.unwrap()
    };
    let status = resp.status();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(body.to_vec()).unwrap())
}

struct Probes {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<()>,
}

impl Probes {
    async fn start(w: Webhook) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let done = tokio::spawn(webhook::server::run_probes(w, listener, async move {
            let _ = stopped.await;
        }));
        Self {
            addr,
            stop: Some(stop),
            done,
        }
    }

    async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        tokio::time::timeout(Duration::from_secs(10), self.done)
            .await
            .expect("the probe port stops")
            .unwrap();
    }
}

#[tokio::test]
async fn the_probe_port_serves_health_and_metrics_without_a_client_certificate() {
    // The admission port demands client certificates (--client-ca); the probe port asks for none.
    let certs = SelfSigned::generate(&["localhost"]).unwrap();
    let client_ca = SelfSigned::generate(&["kube-apiserver"]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("client-ca.crt");
    std::fs::write(&ca_file, &client_ca.ca_pem).unwrap();
    let w = Webhook::new(WebhookOptions {
        workers: 2,
        ..WebhookOptions::default()
    });
    let probes = Probes::start(w.clone()).await;
    let server = Server::start(w.clone(), memory_tls(&certs, Some(ca_file))).await;

    // Not ready while the component compiles; alive all along.
    let (status, body) = plain_http(probes.addr, false, "GET", "/readyz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(body.contains("compiling"), "{body}");
    assert_eq!(
        plain_http(probes.addr, false, "GET", "/healthz").await.0,
        StatusCode::OK
    );
    let runtime = embedded();
    let digest = runtime.digest().to_owned();
    w.set_runtime(runtime);

    for h2 in [false, true] {
        assert_eq!(
            plain_http(probes.addr, h2, "GET", "/readyz").await.0,
            StatusCode::OK,
            "h2={h2}"
        );
        assert_eq!(
            plain_http(probes.addr, h2, "GET", "/healthz").await.0,
            StatusCode::OK,
            "h2={h2}"
        );
        let (status, metrics) = plain_http(probes.addr, h2, "GET", "/metrics").await;
        assert_eq!(status, StatusCode::OK);
        let build_info = format!(r#"component_sha256="{digest}"}} 1"#);
        assert!(metrics.contains("podmut_build_info{version=\""), "{metrics}");
        assert!(metrics.contains(&build_info), "{metrics}");
        for process in [
            "process_resident_memory_bytes ",
            "process_cpu_seconds_total ",
            "process_open_fds ",
            "process_max_fds ",
        ] {
            assert!(metrics.contains(process), "missing {process} in\n{metrics}");
        }
        // Nothing but the three probe routes.
        let (status, body) = plain_http(probes.addr, h2, "POST", "/validate").await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
        assert!(body.contains("HTTPS port"), "{body}");
    }
    // The admission port still refuses a client without a certificate.
    let refused = https(
        server.addr,
        client_config(&[&certs.ca_pem], b"h2", None),
        "GET",
        "/healthz",
        "",
    )
    .await;
    assert!(
        refused.is_err(),
        "the admission port requires a client certificate"
    );
    server.stop().await;
    // Draining: the probe port reports it until it is stopped itself.
    let (status, body) = plain_http(probes.addr, false, "GET", "/readyz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(body.contains("shutting down"), "{body}");
    probes.stop().await;
}

/// A request body of `chunks` x 16 KiB with no declared length (streamed, like a chunked
/// upload; on HTTP/2 a body without `content-length`).
struct Streamed {
    chunks: usize,
}

impl hyper::body::Body for Streamed {
    type Data = axum::body::Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        if self.chunks == 0 {
            return std::task::Poll::Ready(None);
        }
        self.chunks -= 1;
        std::task::Poll::Ready(Some(Ok(hyper::body::Frame::data(axum::body::Bytes::from(
            vec![b' '; 16 << 10],
        )))))
    }
}

/// POST an oversized body to `/validate` over TLS with `alpn`; `declared` sends the body whole
/// with its `content-length`, otherwise it is streamed without one.
async fn post_oversized(
    addr: SocketAddr,
    ca_pem: &str,
    alpn: &[u8],
    declared: bool,
    chunks: usize,
) -> Result<(StatusCode, Value, Option<&'static str>), String> {
    let tcp = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let connector = tokio_rustls::TlsConnector::from(Arc::new(client_config(&[ca_pem], alpn, None)));
    let tls = connector
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    let negotiated = match tls.get_ref().1.alpn_protocol() {
        Some(b"h2") => Some("h2"),
        Some(b"http/1.1") => Some("http/1.1"),
        _ => None,
    };
    let io = hyper_util::rt::TokioIo::new(tls);
    let builder =
        hyper::Request::post("https://localhost/validate").header(header::CONTENT_TYPE, "application/json");
    let body: http_body_util::combinators::BoxBody<axum::body::Bytes, std::convert::Infallible> = if declared
    {
        http_body_util::BodyExt::boxed(http_body_util::Full::new(axum::body::Bytes::from(vec![
            b' ';
            chunks * (16 << 10)
        ])))
    } else {
        http_body_util::BodyExt::boxed(Streamed { chunks })
    };
    let req = builder.body(body).unwrap();
    let resp = if negotiated == Some("h2") {
        let (mut sender, conn) =
            hyper::client::conn::http2::handshake(hyper_util::rt::TokioExecutor::new(), io)
                .await
                .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        sender
            .send_request(req)
            .await
            .map_err(|e| format!("HTTP/2: {e}"))?
    } else {
        let (mut sender, conn) = hyper::client::conn::http1::handshake(io)
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        sender
            .send_request(req)
            .await
            .map_err(|e| format!("HTTP/1.1: {e}"))?
    };
    let status = resp.status();
    let bytes = resp
        .into_body()
        .collect()
        .await
        .map_err(|e| format!("reading the response body: {e}"))?
        .to_bytes();
    let body = serde_json::from_slice(&bytes).map_err(|e| format!("not JSON ({e}): {bytes:?}"))?;
    Ok((status, body, negotiated))
}

fn small_body_webhook() -> Webhook {
    Webhook::with_runtime(
        WebhookOptions {
            workers: 2,
            max_body_bytes: 64 << 10,
            ..WebhookOptions::default()
        },
        embedded(),
    )
}

#[tokio::test]
async fn oversized_bodies_get_a_readable_413_over_http2_and_http1() {
    let certs = SelfSigned::generate(&["localhost"]).unwrap();
    let w = small_body_webhook();
    let server = Server::start(w.clone(), memory_tls(&certs, None)).await;
    // 1 MiB against a 64 KiB cap: far past any flow-control window the client starts with.
    for alpn in [&b"h2"[..], b"http/1.1"] {
        for declared in [true, false] {
            let (status, body, negotiated) = post_oversized(server.addr, &certs.ca_pem, alpn, declared, 64)
                .await
                .unwrap_or_else(|e| panic!("alpn {alpn:?}, declared {declared}: {e}"));
            assert_eq!(negotiated.map(str::as_bytes), Some(alpn));
            assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
            assert_eq!(body["kind"], "Status");
            assert_eq!(body["code"], 413);
            assert_eq!(body["reason"], "RequestEntityTooLarge");
        }
    }
    // The HTTP/2 connection survives a 413 stream: the next request on a new stream is answered.
    let x = https(
        server.addr,
        client_config(&[&certs.ca_pem], b"h2", None),
        "POST",
        "/validate",
        &allowed_review("uid-after-413").to_string(),
    )
    .await
    .unwrap();
    assert_eq!(x.body["response"]["uid"], "uid-after-413");
    assert!(
        metrics_text(&w)
            .await
            .contains(r#"podmut_http_rejections_total{reason="too_large"} 4"#)
    );
    server.stop().await;
}

/// curl, which must support HTTP/2: the client an operator would try.
fn curl_with_http2() -> std::path::PathBuf {
    let curl = crate::support::required_tool("curl", "apt-get install -y curl");
    let out = std::process::Command::new(&curl)
        .arg("--version")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .find(|l| l.starts_with("Features:"))
            .is_some_and(|f| f.split_whitespace().any(|f| f == "HTTP2")),
        "this test needs a curl built with HTTP/2 (Debian's is):\n{text}"
    );
    curl
}

#[tokio::test]
#[ignore = "needs curl with HTTP/2 on PATH; run with --ignored (cargo xtask ci does)"]
async fn curl_http2_reads_the_413() {
    let curl = curl_with_http2();
    let certs = SelfSigned::generate(&["localhost"]).unwrap();
    let server = Server::start(small_body_webhook(), memory_tls(&certs, None)).await;
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    let big = dir.path().join("big.json");
    let out = dir.path().join("out.json");
    std::fs::write(&ca, &certs.ca_pem).unwrap();
    std::fs::write(&big, vec![b' '; 1 << 20]).unwrap();
    let port = server.addr.port();
    let output = tokio::task::spawn_blocking(move || {
        let o = std::process::Command::new(curl)
            .args(["--http2", "--silent", "--show-error", "--max-time", "20"])
            .arg("--cacert")
            .arg(&ca)
            .args(["--resolve", &format!("localhost:{port}:127.0.0.1")])
            .args(["-H", "Content-Type: application/json", "--data-binary"])
            .arg(format!("@{}", big.display()))
            .arg("-o")
            .arg(&out)
            .args(["-w", "%{http_code} %{http_version}"])
            .arg(format!("https://localhost:{port}/validate"))
            .output()
            .unwrap();
        (o, std::fs::read_to_string(&out).unwrap_or_default())
    })
    .await
    .unwrap();
    let (o, body) = output;
    let written = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "curl failed ({}): {} / {written}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(written, "413 2", "status and HTTP version");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["reason"], "RequestEntityTooLarge");
    server.stop().await;
}

// ------------------------------------------------------------------------------------------
// Enforcement: the component answers, the webhook counts and logs

fn webhook_with_settings(settings: &str) -> Webhook {
    Webhook::with_runtime(
        WebhookOptions {
            settings: settings.to_owned(),
            workers: 2,
            ..WebhookOptions::default()
        },
        embedded(),
    )
}

#[tokio::test]
async fn warn_and_audit_allow_and_count_would_deny() {
    for mode in ["warn", "audit"] {
        let w = webhook_with_settings(&format!("enforcement: {mode}"));
        let r = call(&w, post(denied_review("uid-enforce").to_string())).await;
        assert_eq!(r.status, StatusCode::OK);
        let v = r.json();
        let resp = &v["response"];
        assert_eq!(resp["uid"], "uid-enforce");
        assert_eq!(resp["allowed"], true, "{mode}: {v}");
        assert!(
            resp["auditAnnotations"]["would-deny"]
                .as_str()
                .unwrap()
                .starts_with("Pod \"web\" is invalid: spec.containers: Forbidden"),
            "{v}"
        );
        let warnings = resp
            .get("warnings")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if mode == "warn" {
            assert_eq!(warnings.len(), 1, "{v}");
            assert!(
                warnings[0]
                    .as_str()
                    .unwrap()
                    .starts_with("podmut would deny: spec.containers: Forbidden")
            );
        } else {
            assert!(warnings.is_empty(), "audit sends no warnings: {v}");
        }
        // An allowed request is no would-deny.
        let r = call(&w, post(allowed_review("uid-ok").to_string())).await;
        assert!(r.json()["response"].get("auditAnnotations").is_none());
        let m = metrics_text(&w).await;
        assert!(
            m.contains(r#"podmut_admission_requests_total{subresource="none",verdict="would-deny",dry_run="false"} 1"#),
            "{m}"
        );
        assert!(m.contains(r#"verdict="allowed",dry_run="false"} 1"#), "{m}");
        assert!(!m.contains(r#"verdict="denied""#), "{m}");
    }
    // deny stays the default.
    let w = webhook_with_settings("");
    assert_eq!(
        call(&w, post(denied_review("uid-deny").to_string())).await.json()["response"]["allowed"],
        false
    );
}

#[tokio::test]
async fn enforcement_never_lets_unjudgeable_requests_through() {
    let w = webhook_with_settings("enforcement: audit");
    let mut bad = denied_review("uid-bad");
    bad["request"]["object"]["spec"]["containers"] = json!("not a list");
    let v = call(&w, post(bad.to_string())).await.json();
    assert_eq!(v["response"]["allowed"], false, "{v}");
    assert_eq!(v["response"]["status"]["code"], 400);
}
