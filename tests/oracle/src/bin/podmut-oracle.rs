//! `podmut-oracle start|stop|status`: a control plane of a pinned release on loopback, for
//! trying podmut against a real API server by hand (`cargo xtask oracle start` builds it first).
//!
//! ```sh
//! cargo xtask oracle start --release 1.37     # prints: export KUBECONFIG=...
//! kubectl --kubeconfig ... get --raw /version
//! cargo xtask oracle stop --release 1.37
//! ```
//!
//! `start` runs the control plane in a background process of its own and returns once the API
//! server is ready; `stop` ends it (the API server, then etcd) and waits until it is gone.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use podmut_oracle::{Config, ControlPlane, Pins, Release, process, releases};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("podmut-oracle: {e}");
            ExitCode::from(2)
        }
    }
}

const USAGE: &str = "usage: podmut-oracle start|stop|status [--release 1.37] [--feature-gates A=true,...]";

fn run(args: &[String]) -> Result<(), String> {
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .map(String::as_str)
    };
    let pins = Pins::load().map_err(|e| e.to_string())?;
    let release = match flag("--release") {
        None => pins.newest(),
        Some(r) => pick(&pins, r)?,
    };
    let mut config = Config::stock(release);
    if let Some(gates) = flag("--feature-gates") {
        for g in gates.split(',').filter(|g| !g.is_empty()) {
            let (k, v) = g
                .split_once('=')
                .ok_or_else(|| format!("--feature-gates: {g:?} is not Name=bool"))?;
            let v = v
                .parse()
                .map_err(|_| format!("--feature-gates: {g:?} is not Name=bool"))?;
            config.feature_gates.insert(k.to_owned(), v);
        }
    }
    let dir = releases::cache_dir().join("run").join(release.to_string());
    match args.first().map(String::as_str) {
        Some("start") => start(&dir, args),
        Some("serve") => serve(&config, &dir),
        Some("stop") => stop(&dir),
        Some("status") => {
            match running(&dir) {
                Some(pid) => println!(
                    "running (pid {pid}): export KUBECONFIG={}",
                    dir.join("kubeconfig").display()
                ),
                None => println!("not running"),
            }
            Ok(())
        }
        _ => Err(USAGE.into()),
    }
}

/// A pinned release by `1.37` or `v1.37.2`.
fn pick(pins: &Pins, name: &str) -> Result<Release, String> {
    let minor = name
        .trim_start_matches('v')
        .strip_prefix("1.")
        .and_then(|r| r.split('.').next())
        .and_then(|m| m.parse().ok());
    minor.and_then(|m| pins.release(m)).ok_or_else(|| {
        let known: Vec<String> = pins.kubernetes.iter().map(|r| r.minor_name()).collect();
        format!(
            "--release {name}: not a pinned release (pinned: {})",
            known.join(", ")
        )
    })
}

/// The pid of the serving process, when it is alive.
fn running(dir: &Path) -> Option<u32> {
    let pid: u32 = std::fs::read_to_string(dir.join("pid"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    (process::alive(pid) && dir.join("ready").is_file()).then_some(pid)
}

fn start(dir: &Path, args: &[String]) -> Result<(), String> {
    if let Some(pid) = running(dir) {
        println!(
            "already running (pid {pid})\nexport KUBECONFIG={}",
            dir.join("kubeconfig").display()
        );
        return Ok(());
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let _ = std::fs::remove_file(dir.join("ready"));
    let log = dir.join("oracle.log");
    let out = std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
    let err = out.try_clone().map_err(|e| format!("{}: {e}", log.display()))?;
    let me = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let mut serve_args: Vec<String> = args.to_vec();
    serve_args[0] = "serve".into();
    let mut child = {
        use std::os::unix::process::CommandExt;
        std::process::Command::new(me)
            .args(&serve_args)
            .stdin(std::process::Stdio::null())
            .stdout(out)
            .stderr(err)
            // Its own process group: the terminal's Ctrl-C does not reach it; `stop` does.
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start the control plane: {e}"))?
    };
    let deadline = Instant::now() + Duration::from_secs(180);
    while !dir.join("ready").is_file() {
        if let Ok(Some(status)) = child.try_wait() {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            return Err(format!("the control plane exited ({status}):\n{text}"));
        }
        if Instant::now() > deadline {
            return Err(format!(
                "the control plane was not ready after 180s; see {}",
                log.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    println!("export KUBECONFIG={}", dir.join("kubeconfig").display());
    Ok(())
}

fn serve(config: &Config, dir: &Path) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let plane = ControlPlane::start_kept(config, dir)
            .await
            .map_err(|e| e.to_string())?;
        let write = |name: &str, text: String| {
            let p: PathBuf = dir.join(name);
            std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))
        };
        write("pid", std::process::id().to_string())?;
        write("ready", format!("{}\n", plane.url))?;
        eprintln!("ready: {} ({})", plane.url, plane.config.describe());
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .map_err(|e| e.to_string())?;
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        let _ = std::fs::remove_file(dir.join("ready"));
        drop(plane);
        let _ = std::fs::remove_file(dir.join("pid"));
        Ok(())
    })
}

fn stop(dir: &Path) -> Result<(), String> {
    let Some(pid) = std::fs::read_to_string(dir.join("pid"))
        .ok()
        .and_then(|p| p.trim().parse::<u32>().ok())
        .filter(|p| process::alive(*p))
    else {
        println!("not running");
        return Ok(());
    };
    process::terminate(pid);
    let deadline = Instant::now() + Duration::from_secs(30);
    while process::alive(pid) {
        if Instant::now() > deadline {
            return Err(format!("pid {pid} did not stop within 30s"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    println!("stopped");
    Ok(())
}
