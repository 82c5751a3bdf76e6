//! `podmut serve` as a process: flags, JSON logs, a review over HTTPS on 127.0.0.1, SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{
    Served, expect_bad_input, pod, podmut, post_validate_blocking, review, serve_json, stderr,
};

#[test]
fn serve_needs_a_certificate() {
    let o = podmut().arg("serve").output().unwrap();
    expect_bad_input(&o, "--self-signed");
    let o = podmut()
        .args([
            "serve",
            "--tls-cert",
            "/nonexistent/tls.crt",
            "--tls-key",
            "/nonexistent/tls.key",
        ])
        .output()
        .unwrap();
    expect_bad_input(&o, "/nonexistent/tls.crt");
    let o = podmut()
        .args(["serve", "--self-signed", "--deadline", "soon"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn serve_answers_over_https_and_drains_on_sigterm() {
    let dir = crate::support::tempdir();
    let ca = dir.path().join("ca.pem");
    let Served {
        mut child,
        lines,
        addr,
        ca_pem,
    } = serve_json(&ca, &[]);
    let review = review(
        "uid-process",
        "",
        &pod("web", &[("a", "x")]),
        &pod("web", &[("a", "x"), ("b", "y")]),
    );
    let x = post_validate_blocking(&addr, &ca_pem, &review.to_string());
    let (status, v) = (x.status.as_u16(), x.body);
    assert_eq!(status, 200);
    assert_eq!(v["response"]["uid"], "uid-process");
    assert_eq!(v["response"]["status"]["code"], 422);

    // The same review through `podmut review --server`, as YAML (sent as JSON): same answer, exit 1.
    let file = dir.path().join("review.yaml");
    std::fs::write(&file, podmut_core::to_yaml(&review)).unwrap();
    let o = podmut()
        .args(["review", "--server", &format!("https://{addr}"), "--ca"])
        .arg(&ca)
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(answer["response"], v["response"]);
    // A CA file that holds no certificate is bad input, named.
    let o = podmut()
        .args(["review", "--server", &format!("https://{addr}"), "--ca"])
        .arg(&file)
        .arg(&file)
        .output()
        .unwrap();
    expect_bad_input(&o, "--ca ");
    // https:// without --ca is refused before connecting; nothing listening fails naming the URL.
    let o = podmut()
        .args(["review", "--server", &format!("https://{addr}")])
        .arg(&file)
        .output()
        .unwrap();
    expect_bad_input(&o, "--ca FILE");
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let url = format!("http://{closed}/validate");
    let o = podmut()
        .args(["review", "--request-timeout", "1s", "--server", &url])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains(&url), "{}", stderr(&o));

    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "graceful exit; log: {rest:?}");
    assert!(rest.iter().any(|l| l.contains("SIGTERM")), "{rest:?}");
    assert!(rest.iter().any(|l| l.contains("drained")), "{rest:?}");
}

/// GET over plain HTTP/1.1 (the probe port).
async fn get_plain(addr: &str, path: &str) -> (u16, String) {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tcp))
        .await
        .unwrap();
    tokio::spawn(conn);
    let req = hyper::Request::get(path)
        .header("host", addr)
        .body(http_body_util::Empty::<axum::body::Bytes>::new())
        .unwrap();
    let resp = sender.send_request(req).await.unwrap();
    let status = resp.status().as_u16();
    let bytes = http_body_util::BodyExt::collect(resp.into_body())
        .await
        .unwrap()
        .to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

/// Kills the server when a test fails half-way (the test itself sends SIGTERM when it does not).
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn serve_probe_addr_answers_probes_and_metrics_over_plain_http() {
    let child = podmut()
        .args([
            "serve",
            "--self-signed",
            "--addr",
            "127.0.0.1:0",
            "--probe-addr",
            "127.0.0.1:0",
            "--log-format",
            "json",
            "--workers",
            "1",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = KillOnDrop(child);
    let mut lines = BufReader::new(child.0.stderr.take().unwrap()).lines();
    let mut probe_addr = None;
    let started = Instant::now();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        if v["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("listening (HTTP"))
        {
            probe_addr = Some(v["addr"].as_str().unwrap().to_owned());
        }
        if v["message"] == "policy component ready" {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "serve did not become ready"
        );
    }
    let addr = probe_addr.expect("the log names the probe address");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (status, body) = rt.block_on(get_plain(&addr, "/readyz"));
    assert_eq!((status, body.as_str()), (200, "ready\n"));
    let (status, metrics) = rt.block_on(get_plain(&addr, "/metrics"));
    assert_eq!(status, 200);
    assert!(metrics.contains("podmut_build_info{version=\""), "{metrics}");
    assert!(metrics.contains("process_resident_memory_bytes "), "{metrics}");
    let pid = child.0.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert_eq!(child.0.wait().unwrap().code(), Some(0), "{rest:?}");
}

#[test]
fn serve_refuses_settings_the_component_refuses_with_exit_2() {
    let o = podmut()
        .args([
            "serve",
            "--self-signed",
            "--addr",
            "127.0.0.1:0",
            "--kubernetes-version",
            "1.29",
        ])
        .output()
        .unwrap();
    expect_bad_input(&o, "supported: 1.35, 1.36, 1.37, or preview");
    let o = podmut()
        .args([
            "serve",
            "--self-signed",
            "--addr",
            "127.0.0.1:18443",
            "--probe-addr",
            "127.0.0.1:18443",
        ])
        .output()
        .unwrap();
    expect_bad_input(&o, "--probe-addr");
}
