//! Starting and stopping local servers for the demo and the load test.

use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

use crate::cmd::Result;

/// `preferred` if it can be bound, else a free loopback port.
pub(crate) fn free_addr(preferred: &str) -> String {
    if std::net::TcpListener::bind(preferred).is_ok() {
        return preferred.to_owned();
    }
    ephemeral_addr().unwrap_or_else(|_| preferred.to_owned())
}

/// A free loopback address with a port chosen by the kernel.
pub(crate) fn ephemeral_addr() -> Result<String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.to_string())
        .map_err(|e| format!("cannot find a free port: {e}"))
}

/// Wait until the server has written its whole CA (it then listens), or fail if it exited.
pub(crate) fn wait_for_file(path: &Path, server: &mut Child) -> Result {
    for _ in 0..600 {
        // The file is written in place: wait for its last line, not for it to exist.
        if std::fs::read_to_string(path)
            .is_ok_and(|pem| pem.trim_end().ends_with("-----END CERTIFICATE-----"))
        {
            return Ok(());
        }
        if let Ok(Some(status)) = server.try_wait() {
            return Err(format!("podmut serve exited ({status})"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(format!(
        "podmut serve did not write {} within 60 s",
        path.display()
    ))
}

/// Wait (up to 120 s: `wasmtime serve` compiles the component first) until `addr` accepts TCP.
pub(crate) fn wait_for_port(addr: &str) -> Result {
    for _ in 0..1200 {
        if std::net::TcpStream::connect(addr).is_ok() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(format!("nothing listens on {addr} after 120 s"))
}

/// SIGTERM (the server drains), then wait; SIGKILL if it does not stop within 40 s.
pub(crate) fn stop_gracefully(server: &mut Child) {
    let pid = server.id().to_string();
    let _ = Command::new("kill").args(["-TERM", &pid]).status();
    for _ in 0..400 {
        if let Ok(Some(_)) = server.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = server.kill();
    let _ = server.wait();
}
