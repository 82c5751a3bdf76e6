//! podmut's task runner. Run with `cargo xtask <task>`:
//!
//! - `setup`        install what a fresh machine lacks (the wasm32-wasip2 and wasm32-unknown-unknown targets)
//! - `build-guest`  build the component: `cargo build -p podmut-guest --target wasm32-wasip2 --release`
//! - `web`          transpile the component for the browser playground (npm deps into web/node_modules)
//! - `kubewarden`   build the Kubewarden (waPC) policy module
//! - `lint`         rustfmt check; clippy -D warnings natively and for wasm32-wasip2 (core, guest)
//! - `test`         every test: `cargo test --workspace`, then the playground in Chromium
//! - `ci`           setup, lint, test: what `.ci/run` runs
//! - `demo`         build the CLI, check the example Pod changes in `policies/examples/`, then
//!   start the webhook with `--self-signed` and send it the same changes over HTTPS
//! - `load`         webhook load test over HTTPS on loopback (BENCHMARKS.md)
//! - `bless`        rewrite conformance expectations from the native results
//!
//! Only std: the task runner must build in seconds on a fresh machine.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

type Result<T = ()> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let task = args.first().map_or("help", String::as_str);
    let rest = &args[args.len().min(1)..];
    let result = match task {
        "setup" => setup(),
        "build-guest" => build_guest().map(|p| println!("{}", p.display())),
        "web" => setup().and_then(|()| web()).map(|_| ()),
        "kubewarden" => setup()
            .and_then(|()| kubewarden())
            .map(|p| println!("{}", p.display())),
        "lint" => setup().and_then(|()| lint()),
        "test" => setup().and_then(|()| test(rest)),
        "ci" => setup().and_then(|()| lint()).and_then(|()| test(rest)),
        "demo" => setup().and_then(|()| demo(rest)),
        "load" => setup().and_then(|()| load(rest)),
        "bless" => setup().and_then(|()| bless()),
        "help" | "-h" | "--help" => {
            print_help();
            Ok(())
        }
        other => Err(format!("unknown task {other:?}; run `cargo xtask help`")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn print_help() {
    println!(
        "cargo xtask <task>\n\n  setup        install the wasm32-wasip2 and wasm32-unknown-unknown targets if missing\n  build-guest  build the podmut component\n  web          transpile the component into web/pkg for the playground (needs node + npm)\n  kubewarden   build the Kubewarden policy module (wasm32-unknown-unknown)\n  lint         rustfmt + clippy (native and wasm32-wasip2)\n  test         every test\n  ci           setup + lint + test (what .ci/run runs)\n  demo         check the example Pod changes in policies/examples, then serve them over HTTPS\n  load         webhook load test: [--concurrency N] [--duration 10s] [--containers N] [--http2] [--wasmtime-serve COMPONENT.wasm]\n  bless        rewrite conformance expectations from native results"
    );
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

fn cargo() -> Command {
    let mut c = Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(workspace_root());
    c
}

fn run(mut cmd: Command) -> Result {
    eprintln!("$ {}", describe(&cmd));
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {}: {e}", describe(&cmd)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{}` failed ({status})", describe(&cmd)))
    }
}

fn describe(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

fn target_dir() -> PathBuf {
    env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace_root().join("target"), PathBuf::from)
}

/// Install the wasm targets through rustup when they are missing: wasm32-wasip2 (the component)
/// and wasm32-unknown-unknown (the Kubewarden waPC module).
fn setup() -> Result {
    let Ok(out) = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
    else {
        // No rustup: assume the toolchain was provisioned another way; the build says if not.
        return Ok(());
    };
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    for target in ["wasm32-wasip2", "wasm32-unknown-unknown"] {
        if !listed.lines().any(|l| l.trim() == target) {
            let mut c = Command::new("rustup");
            c.args(["target", "add", target]);
            run(c)?;
        }
    }
    Ok(())
}

fn build_guest() -> Result<PathBuf> {
    let mut c = cargo();
    c.args([
        "build",
        "--package",
        "podmut-guest",
        "--target",
        "wasm32-wasip2",
        "--release",
    ]);
    run(c)?;
    Ok(target_dir()
        .join("wasm32-wasip2")
        .join("release")
        .join("podmut_guest.wasm"))
}

fn lint() -> Result {
    let mut fmt = cargo();
    fmt.args(["fmt", "--all", "--", "--check"]);
    run(fmt)?;
    let mut clippy = cargo();
    clippy.args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]);
    run(clippy)?;
    let mut wasm = cargo();
    wasm.args([
        "clippy",
        "--package",
        "podmut-core",
        "--package",
        "podmut-guest",
        "--package",
        "podmut-misbehave",
        "--target",
        "wasm32-wasip2",
        "--",
        "-D",
        "warnings",
    ]);
    run(wasm)?;
    let mut kubewarden = cargo();
    kubewarden.args([
        "clippy",
        "--package",
        "podmut-kubewarden",
        "--target",
        "wasm32-unknown-unknown",
        "--",
        "-D",
        "warnings",
    ]);
    run(kubewarden)
}

fn test(extra: &[String]) -> Result {
    // The playground assets first, so the podmut binary the tests build embeds them.
    let web_ready = web()?;
    let mut c = cargo();
    // The guest is a cdylib for wasm32-wasip2 only: its component export names cannot be linked
    // natively (clippy still checks it natively and for wasm); its behaviour is tested through the
    // component in host/ and tests/.
    c.args([
        "test",
        "--workspace",
        "--exclude",
        "podmut-guest",
        "--exclude",
        "podmut-misbehave",
    ]);
    c.args(extra);
    run(c)?;
    if web_ready {
        browser_tests()
    } else {
        eprintln!("\n!!! xtask: SKIPPING the browser tests: node/npm are not installed !!!\n");
        Ok(())
    }
}

/// Whether a program runs (`prog --version`).
fn has(prog: &str) -> bool {
    Command::new(prog)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Transpile the exact component `podmut component` writes into `web/pkg` with jco (npm packages
/// installed into web/node_modules from web/package-lock.json). Returns false, loudly, when node or
/// npm is missing: `cargo build` and the Rust tests do not need them.
fn web() -> Result<bool> {
    if !has("node") || !has("npm") {
        eprintln!("\n!!! xtask: node/npm not found: the playground is built without the component !!!\n");
        return Ok(false);
    }
    let webdir = workspace_root().join("web");
    let lock = webdir.join("package-lock.json");
    let stamp = webdir.join("node_modules").join(".package-lock.json");
    let fresh = match (std::fs::metadata(&lock), std::fs::metadata(&stamp)) {
        (Ok(l), Ok(s)) => matches!((l.modified(), s.modified()), (Ok(l), Ok(s)) if s >= l),
        _ => false,
    };
    if !fresh {
        let mut npm = Command::new("npm");
        npm.current_dir(&webdir).args(["ci", "--no-audit", "--no-fund"]);
        run(npm)?;
    }
    let mut build = cargo();
    build.args(["build", "--package", "podmut", "--bin", "podmut"]);
    run(build)?;
    let component = target_dir().join("podmut-playground.wasm");
    let mut write = Command::new(target_dir().join("debug").join("podmut"));
    write.arg("component").arg("--output").arg(&component);
    run(write)?;
    let mut transpile = Command::new("node");
    transpile
        .current_dir(&webdir)
        .arg("scripts/transpile.mjs")
        .arg(&component)
        .arg("pkg");
    run(transpile)?;
    Ok(true)
}

/// The playground in Debian's Chromium (playwright-core; no browser download).
fn browser_tests() -> Result {
    let webdir = workspace_root().join("web");
    // Rebuild so the binary embeds web/pkg (cargo test may have built it before web/pkg changed).
    let mut build = cargo();
    build.args(["build", "--package", "podmut", "--bin", "podmut"]);
    run(build)?;
    let mut node = Command::new("node");
    node.current_dir(&webdir)
        .args(["--test", "--test-reporter=spec", "tests/"])
        .env("PODMUT_BIN", target_dir().join("debug").join("podmut"))
        .env("PODMUT_ARTIFACTS_DIR", target_dir().join("web-test-results"));
    run(node)
}

/// Build the Kubewarden policy (waPC, wasm32-unknown-unknown). Annotate it with
/// `kwctl annotate -m kubewarden/metadata.yml -u kubewarden/README.md <wasm> -o policy.wasm`.
fn kubewarden() -> Result<PathBuf> {
    let mut c = cargo();
    c.args([
        "build",
        "--package",
        "podmut-kubewarden",
        "--target",
        "wasm32-unknown-unknown",
        "--release",
    ]);
    run(c)?;
    Ok(target_dir()
        .join("wasm32-unknown-unknown")
        .join("release")
        .join("podmut_kubewarden.wasm"))
}

fn bless() -> Result {
    let mut c = cargo();
    c.args(["test", "--package", "podmut-conformance", "--test", "conformance"])
        .env("PODMUT_BLESS", "1");
    run(c)
}

/// Build the release CLI and check every example change in `policies/examples/<name>/` (files
/// `old.yaml`, `new.yaml`, optional `subresource`), printing each verdict; then start the webhook
/// (`podmut serve --self-signed`) on the embedded component and send it the same changes as
/// AdmissionReviews over HTTPS. With a terminal (or `--serve`) the webhook keeps running until
/// Ctrl-C; otherwise (or with `--no-serve`) it is stopped with SIGTERM and drains.
fn demo(extra: &[String]) -> Result {
    let keep_serving = if extra.iter().any(|a| a == "--no-serve") {
        false
    } else {
        extra.iter().any(|a| a == "--serve") || std::io::IsTerminal::is_terminal(&std::io::stdin())
    };
    let mut build = cargo();
    build.args(["build", "--release", "--package", "podmut"]);
    run(build)?;
    let bin = target_dir().join("release").join("podmut");
    let examples = example_dirs()?;
    for dir in &examples {
        let sub = subresource_of(dir);
        println!("== {} (subresource {sub})", name_of(dir));
        let mut c = Command::new(&bin);
        c.arg("check");
        if dir.join("old.yaml").is_file() {
            c.arg("--old").arg(dir.join("old.yaml"));
        }
        c.arg("--new")
            .arg(dir.join("new.yaml"))
            .args(["--subresource", &sub]);
        let status = c
            .status()
            .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
        match status.code() {
            Some(0 | 1) => {}
            _ => return Err(format!("podmut check failed on {} ({status})", dir.display())),
        }
    }

    // The webhook, on the same component.
    let client = build_load_tool()?;
    let out = target_dir().join("podmut-demo");
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let ca = out.join("ca.pem");
    let _ = std::fs::remove_file(&ca);
    let addr = free_addr("127.0.0.1:8443");
    println!(
        "\n== webhook: podmut serve --self-signed --ca-out {} --addr {addr}",
        ca.display()
    );
    let mut server = Command::new(&bin)
        .args(["serve", "--self-signed", "--addr", &addr, "--ca-out"])
        .arg(&ca)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let url = format!("https://{addr}/validate");
    let result = (|| -> Result {
        wait_for_file(&ca, &mut server)?;
        for dir in &examples {
            let sub = subresource_of(dir);
            println!("\n== POST {url}: {} (subresource {sub})", name_of(dir));
            let mut c = Command::new(&client);
            c.args(["--url", &url, "--once", "--wait-ready", "--subresource", &sub])
                .arg("--ca")
                .arg(&ca)
                .arg("--new")
                .arg(dir.join("new.yaml"));
            if dir.join("old.yaml").is_file() {
                c.arg("--old").arg(dir.join("old.yaml"));
            }
            run(c)?;
        }
        Ok(())
    })();
    if result.is_ok() && keep_serving {
        println!(
            "\nThe webhook is serving {url} (CA: {}). Try:\n  curl --cacert {} https://{addr}/metrics\nCtrl-C stops it.",
            ca.display(),
            ca.display()
        );
        let _ = server.wait();
        return Ok(());
    }
    stop_gracefully(&mut server);
    result
}

fn example_dirs() -> Result<Vec<PathBuf>> {
    let examples = workspace_root().join("policies").join("examples");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&examples)
        .map_err(|e| format!("cannot list {}: {e}", examples.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        // Only check examples (old.yaml/new.yaml); `node/` holds the node-side command examples.
        .filter(|p| p.is_dir() && p.join("new.yaml").is_file())
        .collect();
    dirs.sort();
    Ok(dirs)
}

fn subresource_of(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("subresource"))
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|_| "none".into())
}

fn name_of(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `preferred` if it can be bound, else a free loopback port.
fn free_addr(preferred: &str) -> String {
    if std::net::TcpListener::bind(preferred).is_ok() {
        return preferred.to_owned();
    }
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_or_else(|_| preferred.to_owned(), |a| a.to_string())
}

/// Wait until the server has written its CA (it then listens), or fail if it exited.
fn wait_for_file(path: &Path, server: &mut std::process::Child) -> Result {
    for _ in 0..600 {
        if path.is_file() {
            return Ok(());
        }
        if let Ok(Some(status)) = server.try_wait() {
            return Err(format!("podmut serve exited ({status})"));
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    Err(format!(
        "podmut serve did not write {} within 60 s",
        path.display()
    ))
}

/// SIGTERM (the server drains), then wait; SIGKILL if it does not stop within 40 s.
fn stop_gracefully(server: &mut std::process::Child) {
    let pid = server.id().to_string();
    let _ = Command::new("kill").args(["-TERM", &pid]).status();
    for _ in 0..400 {
        if let Ok(Some(_)) = server.try_wait() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = server.kill();
    let _ = server.wait();
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

/// Value of `--name VALUE` in `args`.
fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

/// Load test over HTTPS on loopback: build podmut and the load generator, start
/// `podmut serve --self-signed`, drive it, stop it. `--wasmtime-serve COMPONENT.wasm` also runs the
/// same load over plain HTTP against `wasmtime serve` (needs the `wasmtime` CLI and a component
/// exporting `wasi:http/incoming-handler`).
fn load(extra: &[String]) -> Result {
    let concurrency = flag(extra, "--concurrency").unwrap_or("16");
    let duration = flag(extra, "--duration").unwrap_or("10s");
    let containers = flag(extra, "--containers").unwrap_or("8");
    let workers = flag(extra, "--workers").unwrap_or("2");
    let http2 = extra.iter().any(|a| a == "--http2");
    let mut build = cargo();
    build.args(["build", "--release", "--package", "podmut"]);
    run(build)?;
    let bin = target_dir().join("release").join("podmut");
    let client = build_load_tool()?;
    let out = target_dir().join("podmut-load");
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let ca = out.join("ca.pem");
    let _ = std::fs::remove_file(&ca);
    let addr = free_addr("127.0.0.1:0");
    let mut server = Command::new(&bin)
        .args([
            "serve",
            "--self-signed",
            "--addr",
            &addr,
            "--workers",
            workers,
            "--log-level",
            "warn",
            "--ca-out",
        ])
        .arg(&ca)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let base = |c: &mut Command| {
        c.args([
            "--concurrency",
            concurrency,
            "--duration",
            duration,
            "--containers",
            containers,
        ]);
        if http2 {
            c.arg("--http2");
        }
    };
    let result = (|| -> Result {
        wait_for_file(&ca, &mut server)?;
        let mut c = Command::new(&client);
        c.args([
            "--url",
            &format!("https://{addr}/validate"),
            "--wait-ready",
            "--label",
            "podmut-serve-https",
        ])
        .arg("--ca")
        .arg(&ca);
        base(&mut c);
        run(c)
    })();
    stop_gracefully(&mut server);
    result?;
    if let Some(component) = flag(extra, "--wasmtime-serve") {
        let addr = free_addr("127.0.0.1:0");
        let mut ws = Command::new("wasmtime")
            .args(["serve", "-S", "cli", "--addr", &addr, component])
            .spawn()
            .map_err(|e| format!("cannot start `wasmtime serve` (is the wasmtime CLI installed?): {e}"))?;
        std::thread::sleep(std::time::Duration::from_secs(2));
        let mut c = Command::new(&client);
        c.args([
            "--url",
            &format!("http://{addr}/validate"),
            "--label",
            "wasmtime-serve-http",
        ]);
        base(&mut c);
        let r = run(c);
        let _ = ws.kill();
        let _ = ws.wait();
        r?;
    }
    Ok(())
}
