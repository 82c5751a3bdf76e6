//! `cargo xtask load`: webhook load test over HTTPS on loopback (BENCHMARKS.md).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cmd::{Result, cargo, describe, ensure_dir, flag, run, target_dir};
use crate::demo::build_cli;
use crate::server::{ephemeral_addr, stop_gracefully, wait_for_file, wait_for_port};

const LOAD_HELP: &str = "cargo xtask load [OPTIONS]: webhook load test on loopback (release build)

Starts `podmut serve --self-signed` (HTTPS) and drives it with the load generator
(host/benches/load.rs; its own options: `cargo bench -p podmut --bench load -- --help`).
Results go to stdout; files to <target>/podmut-load/.

  --concurrency N          connections (default 16)
  --sweep 1,4,16,64        run once per concurrency instead (same server)
  --rate R                 open loop: R requests/s in total on a fixed schedule (default: closed loop)
  --duration 10s           measured time per run (after a 2 s warm-up)
  --soak 10m               one long run: --duration 10m, the server's VmRSS sampled every 10 s
                           into podmut-load/soak-rss.tsv, /metrics reported at the end
  --containers N           main containers in the generated Pod (default 8)
  --http2                  HTTP/2 instead of HTTP/1.1
  --workers N              podmut serve --workers (default 2 = the CPUs here)
  --deadline D             podmut serve --deadline (default 2s)
  --podmut FILE            run this podmut binary (e.g. dist/podmut) instead of building one
  --compare FILE           also serve this podmut binary (e.g. a glibc build) and drive both,
                           run by run, in the same invocation (same load, same moment)
  --rounds N               repeat every run N times (default 1), interleaving the servers
  --rss                    sample each server's VmRSS every second during each run
  --load-tool FILE         use this load generator binary instead of building it
  --policy FILE.wasm       serve this component instead of the embedded one
  --misbehave              serve the misbehaving test component (tests/misbehave, built here)
  --fault-share F          share of requests (0..1) carrying a fault marker (needs --misbehave)
  --fault-kinds panic,loop fault kinds used in turn (panic, loop, oom, garbage)
  --wasmtime-serve C.wasm  also run every load against `wasmtime serve -S cli C.wasm` (plain
                           HTTP), interleaved with podmut run by run, in the same invocation
  --json                   one JSON object per run";

/// One `podmut serve` under test.
struct Server {
    /// The result lines' label.
    label: String,
    child: std::process::Child,
    /// Its CA (`--ca-out`).
    ca: PathBuf,
    addr: String,
}

/// Start `podmut serve --self-signed` from `bin` and wait until it listens.
fn start_server(bin: &Path, label: String, args: &ServeArgs<'_>, out: &Path) -> Result<Server> {
    let ca = out.join(format!("ca-{}.pem", label.replace(['/', ' '], "_")));
    let _ = std::fs::remove_file(&ca);
    let addr = ephemeral_addr()?;
    let mut serve = Command::new(bin);
    serve.args([
        "serve",
        "--self-signed",
        "--addr",
        &addr,
        "--workers",
        args.workers,
        "--deadline",
        args.deadline,
        "--log-level",
        "error",
        "--ca-out",
    ]);
    serve.arg(&ca);
    if let Some(p) = args.policy {
        serve.arg("--policy").arg(p);
    }
    eprintln!("$ {}", describe(&serve));
    let mut child = serve
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    if let Err(e) = wait_for_file(&ca, &mut child) {
        stop_gracefully(&mut child);
        return Err(e);
    }
    Ok(Server {
        label,
        child,
        ca,
        addr,
    })
}

/// The `podmut serve` flags every server under test gets.
struct ServeArgs<'a> {
    workers: &'a str,
    deadline: &'a str,
    policy: Option<&'a Path>,
}

/// Load test over HTTPS on loopback: build podmut and the load generator, start
/// `podmut serve --self-signed` (and the `--compare` binary, and `wasmtime serve`), drive them in
/// turn, stop them. See [`LOAD_HELP`].
pub(crate) fn load(extra: &[String]) -> Result {
    if extra.iter().any(|a| a == "--help" || a == "-h") {
        println!("{LOAD_HELP}");
        return Ok(());
    }
    let soak = flag(extra, "--soak");
    let duration = soak.or_else(|| flag(extra, "--duration")).unwrap_or("10s");
    let containers = flag(extra, "--containers").unwrap_or("8");
    let rate = flag(extra, "--rate");
    let fault_share = flag(extra, "--fault-share");
    let fault_kinds = flag(extra, "--fault-kinds");
    let has = |name: &str| extra.iter().any(|a| a == name);
    let http2 = has("--http2");
    let sweep: Vec<String> = match flag(extra, "--sweep") {
        Some(list) => list.split(',').map(|c| c.trim().to_owned()).collect(),
        None => vec![flag(extra, "--concurrency").unwrap_or("16").to_owned()],
    };
    let rounds: u32 = match flag(extra, "--rounds") {
        Some(n) => n
            .parse()
            .map_err(|_| format!("--rounds {n:?}: expected a whole number"))?,
        None => 1,
    };
    let bin = match flag(extra, "--podmut") {
        Some(path) => PathBuf::from(path),
        None => build_cli()?,
    };
    let policy = if has("--misbehave") {
        Some(build_misbehave()?)
    } else {
        flag(extra, "--policy").map(PathBuf::from)
    };
    if fault_share.is_some() && policy.is_none() {
        eprintln!("xtask: note: --fault-share without --misbehave: the real component ignores the markers");
    }
    let client = match flag(extra, "--load-tool") {
        Some(path) => PathBuf::from(path),
        None => build_load_tool()?,
    };
    let out = target_dir().join("podmut-load");
    ensure_dir(&out)?;
    let serve_args = ServeArgs {
        workers: flag(extra, "--workers").unwrap_or("2"),
        deadline: flag(extra, "--deadline").unwrap_or("2s"),
        policy: policy.as_deref(),
    };
    let mut binaries = vec![bin];
    binaries.extend(flag(extra, "--compare").map(PathBuf::from));
    let compare = binaries.len() > 1;
    let mut servers = Vec::new();
    let mut wasmtime = None;
    let result = (|| -> Result {
        for b in &binaries {
            let label = if compare {
                format!("podmut-serve-https[{}]", b.display())
            } else {
                "podmut-serve-https".to_owned()
            };
            servers.push(start_server(b, label, &serve_args, &out)?);
        }
        let ws_addr = match flag(extra, "--wasmtime-serve") {
            Some(component) => {
                let ws_addr = ephemeral_addr()?;
                let mut c = Command::new("wasmtime");
                c.args(["serve", "-S", "cli", "--addr", &ws_addr, component]);
                eprintln!("$ {}", describe(&c));
                wasmtime = Some(c.spawn().map_err(|e| {
                    format!("cannot start `wasmtime serve` (is the wasmtime CLI installed?): {e}")
                })?);
                wait_for_port(&ws_addr)?;
                Some(ws_addr)
            }
            None => None,
        };
        for round in 1..=rounds {
            if rounds > 1 {
                println!("== round {round} of {rounds}");
            }
            for concurrency in &sweep {
                let base = |c: &mut Command, label: &str| {
                    c.args([
                        "--concurrency",
                        concurrency,
                        "--duration",
                        duration,
                        "--containers",
                        containers,
                        "--label",
                        label,
                    ]);
                    for (name, value) in [
                        ("--rate", rate),
                        ("--fault-share", fault_share),
                        ("--fault-kinds", fault_kinds),
                    ] {
                        if let Some(v) = value {
                            c.args([name, v]);
                        }
                    }
                    if http2 {
                        c.arg("--http2");
                    }
                    if has("--json") {
                        c.arg("--json");
                    }
                };
                for server in &servers {
                    let mut c = Command::new(&client);
                    c.args([
                        "--url",
                        &format!("https://{}/validate", server.addr),
                        "--wait-ready",
                    ])
                    .arg("--ca")
                    .arg(&server.ca);
                    base(&mut c, &server.label);
                    if soak.is_some() || fault_share.is_some() {
                        c.arg("--metrics-after");
                    }
                    let pid = server.child.id().to_string();
                    if soak.is_some() {
                        c.args(["--rss-pid", &pid, "--sample-every", "10s"])
                            .arg("--samples-out")
                            .arg(out.join("soak-rss.tsv"));
                    } else if has("--rss") {
                        c.args(["--rss-pid", &pid, "--sample-every", "1s"]);
                    }
                    run(c)?;
                }
                if let Some(ws_addr) = &ws_addr {
                    let mut c = Command::new(&client);
                    c.args(["--url", &format!("http://{ws_addr}/validate")]);
                    base(&mut c, "wasmtime-serve-http");
                    run(c)?;
                }
            }
        }
        Ok(())
    })();
    for server in &mut servers {
        stop_gracefully(&mut server.child);
    }
    if let Some(mut ws) = wasmtime {
        let _ = ws.kill();
        let _ = ws.wait();
    }
    result
}

/// Build the load generator (`host/benches/load.rs`) and return its path.
fn build_load_tool() -> Result<PathBuf> {
    let mut c = cargo();
    c.args([
        "bench",
        "--package",
        "podmut",
        "--bench",
        "load",
        "--no-run",
        "--message-format=json-render-diagnostics",
    ]);
    eprintln!("$ {}", describe(&c));
    let output = c
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err("building the load generator failed".into());
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .filter(|l| l.contains("\"reason\":\"compiler-artifact\"") && l.contains("\"kind\":[\"bench\"]"))
        .find_map(|l| {
            let start = l.find("\"executable\":\"")? + "\"executable\":\"".len();
            let end = l[start..].find('"')? + start;
            Some(PathBuf::from(&l[start..end]))
        })
        .ok_or_else(|| "cargo did not report the load generator's executable".into())
}

/// Build the misbehaving test component (tests/misbehave) and return its path.
fn build_misbehave() -> Result<PathBuf> {
    Ok(crate::pipeline::build_components(cargo(), &["podmut-misbehave"])?.join("podmut_misbehave.wasm"))
}
