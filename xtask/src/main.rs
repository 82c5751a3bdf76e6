//! podmut's task runner. Run with `cargo xtask <task>`:
//!
//! - `setup`        install what a fresh machine lacks (the wasm32-wasip2 and wasm32-unknown-unknown targets)
//! - `build-guest`  build the component: `cargo build -p podmut-guest --target wasm32-wasip2 --release`
//! - `web`          transpile the component for the browser playground (npm deps into web/node_modules)
//! - `kubewarden`   build the Kubewarden (waPC) policy module
//! - `lint`         rustfmt check; clippy -D warnings natively and for wasm32-wasip2 (core, guest)
//! - `test`         every test: `cargo test --workspace`, then the playground in Chromium
//! - `ci`           setup (plus the wasmtime CLI the real-CLI tests need), lint, test: what `.ci/run` runs
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
        "test" => no_bless_env()
            .and_then(|()| setup())
            .and_then(|()| test(rest, None)),
        "ci" => no_bless_env().and_then(|()| setup()).and_then(|()| {
            browser_tools()?;
            let wasmtime = wasmtime_cli()?;
            lint()?;
            test(rest, Some(&wasmtime))
        }),
        "demo" => setup().and_then(|()| demo(rest)),
        "load" => setup().and_then(|()| load(rest)),
        "bless" => setup().and_then(|()| bless(rest)),
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
        "cargo xtask <task>\n\n  setup        install the wasm32-wasip2 and wasm32-unknown-unknown targets if missing\n  build-guest  build the podmut component\n  web          transpile the component into web/pkg for the playground (needs node + npm)\n  kubewarden   build the Kubewarden policy module (wasm32-unknown-unknown)\n  lint         rustfmt + clippy (native and wasm32-wasip2)\n  test         every test\n  ci           setup (+ the wasmtime 48 CLI) + lint + test (what .ci/run runs)\n  demo         check the example Pod changes in policies/examples, then serve them over HTTPS\n  load         webhook load test, sweep, soak, fault injection (cargo xtask load --help)\n  bless        rewrite conformance expectations from native results"
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
    build_component("podmut-guest", "podmut_guest.wasm")
}

/// `cargo build -p <package> --target wasm32-wasip2 --release`, returning the component's path.
fn build_component(package: &str, file: &str) -> Result<PathBuf> {
    let mut c = cargo();
    c.args([
        "build",
        "--package",
        package,
        "--target",
        "wasm32-wasip2",
        "--release",
    ]);
    run(c)?;
    Ok(target_dir().join("wasm32-wasip2").join("release").join(file))
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

/// The wasmtime release the component is tested with (the workspace's wasmtime crates).
const WASMTIME_CLI: &str = "48.0.8";

/// The directory holding a `wasmtime` 48 CLI, for the tests that run the unmodified CLI on the
/// component (`host/tests/it/worlds.rs`): the one on PATH when it is 48.x, else one installed with
/// `cargo install wasmtime-cli@48.0.8 --locked` under the target dir (once; ~8 minutes on 2 cores).
/// A bare `--locked` install would pick a release this toolchain cannot build.
fn wasmtime_cli() -> Result<PathBuf> {
    let on_path = Command::new("wasmtime").arg("--version").output();
    if let Ok(out) = on_path
        && String::from_utf8_lossy(&out.stdout).starts_with("wasmtime 48.")
        && let Some(dir) = env::var_os("PATH")
            .and_then(|paths| env::split_paths(&paths).find(|d| d.join("wasmtime").is_file()))
    {
        return Ok(dir);
    }
    let root = target_dir().join("wasmtime-cli");
    let bin = root.join("bin");
    if !bin.join("wasmtime").is_file() {
        let mut c = cargo();
        c.args([
            "install",
            &format!("wasmtime-cli@{WASMTIME_CLI}"),
            "--locked",
            "--root",
        ])
        .arg(&root)
        .env("CARGO_TARGET_DIR", target_dir().join("wasmtime-cli-build"));
        run(c)?;
    }
    Ok(bin)
}

/// Tests never rewrite fixtures: `PODMUT_BLESS` in the environment is refused (`cargo xtask bless`
/// is the one way to rewrite expectations, and it shows what it rewrites).
fn no_bless_env() -> Result {
    match env::var_os("PODMUT_BLESS") {
        Some(v) if !v.is_empty() => Err(format!(
            "PODMUT_BLESS={} is set: tests would rewrite the fixtures instead of checking them; \
             unset it (`cargo xtask bless` rewrites expectations and shows the diff)",
            v.to_string_lossy()
        )),
        _ => Ok(()),
    }
}

/// Where the browser tests look for Chromium (`web/tests/playground.test.mjs`; Debian's package).
fn chromium() -> PathBuf {
    env::var_os("PODMUT_CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

/// What the browser tests need, checked before `ci` spends time on the rest: node, npm, Chromium.
fn browser_tools() -> Result {
    if !has("node") || !has("npm") {
        return Err("node and npm are required for the playground and its browser tests (apt-get install -y nodejs npm)".into());
    }
    if !chromium().is_file() {
        return Err(format!(
            "Chromium is not at {} (the browser tests need it: apt-get install -y chromium, or set PODMUT_CHROMIUM)",
            chromium().display()
        ));
    }
    Ok(())
}

/// Run every test. With `wasmtime` (a directory holding the wasmtime CLI: `cargo xtask ci`) nothing
/// may skip: the real-CLI tests are required (`PODMUT_REQUIRE_WASMTIME=1`), and so are node/npm
/// and Chromium for the browser tests (`PODMUT_REQUIRE_BROWSER=1`).
fn test(extra: &[String], wasmtime: Option<&Path>) -> Result {
    let required = wasmtime.is_some();
    // The playground assets first, so the podmut binary the tests build embeds them.
    let web_ready = web()?;
    if required && !web_ready {
        return Err("node and npm are required for the playground and its browser tests".into());
    }
    let mut c = cargo();
    if let Some(dir) = wasmtime {
        let paths = env::var_os("PATH").unwrap_or_default();
        let joined = env::join_paths(std::iter::once(dir.to_path_buf()).chain(env::split_paths(&paths)))
            .map_err(|e| format!("cannot put {} on PATH: {e}", dir.display()))?;
        c.env("PATH", joined).env("PODMUT_REQUIRE_WASMTIME", "1");
    }
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
        browser_tests(required)
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

/// The playground in Debian's Chromium (playwright-core; no browser download). `required`: a
/// missing Chromium fails the tests instead of skipping them.
fn browser_tests(required: bool) -> Result {
    let webdir = workspace_root().join("web");
    // Rebuild so the binary embeds web/pkg (cargo test may have built it before web/pkg changed).
    let mut build = cargo();
    build.args(["build", "--package", "podmut", "--bin", "podmut"]);
    run(build)?;
    let mut node = Command::new("node");
    node.current_dir(&webdir)
        .args(["--test", "--test-reporter=spec", "tests/"])
        .env("PODMUT_BIN", target_dir().join("debug").join("podmut"))
        .env("PODMUT_CHROMIUM", chromium())
        .env("PODMUT_ARTIFACTS_DIR", target_dir().join("web-test-results"));
    if required {
        node.env("PODMUT_REQUIRE_BROWSER", "1");
    }
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

/// Rewrite each fixture's `expect:` from the native outcome (the runner prints a diff of every
/// rewrite; a case whose component and native outcomes disagree is not rewritten and fails).
/// `cargo xtask bless -- update/` blesses one area.
fn bless(extra: &[String]) -> Result {
    let mut c = cargo();
    c.args([
        "test",
        "--package",
        "podmut-conformance",
        "--test",
        "conformance",
        "--",
    ])
    .args(extra.iter().filter(|a| *a != "--"))
    .env("PODMUT_BLESS", "1");
    run(c).map_err(|e| format!("{e}: nothing was rewritten for the failing cases"))?;
    eprintln!("xtask: blessed; review the rewrites with `git diff tests/cases`");
    Ok(())
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
  --policy FILE.wasm       serve this component instead of the embedded one
  --misbehave              serve the misbehaving test component (tests/misbehave, built here)
  --fault-share F          share of requests (0..1) carrying a fault marker (needs --misbehave)
  --fault-kinds panic,loop fault kinds used in turn (panic, loop, oom, garbage)
  --wasmtime-serve C.wasm  also run every load against `wasmtime serve -S cli C.wasm` (plain
                           HTTP), interleaved with podmut run by run, in the same invocation
  --json                   one JSON object per run";

/// Load test over HTTPS on loopback: build podmut and the load generator, start
/// `podmut serve --self-signed`, drive it, stop it. See [`LOAD_HELP`].
fn load(extra: &[String]) -> Result {
    if extra.iter().any(|a| a == "--help" || a == "-h") {
        println!("{LOAD_HELP}");
        return Ok(());
    }
    let soak = flag(extra, "--soak");
    let duration = soak.or_else(|| flag(extra, "--duration")).unwrap_or("10s");
    let containers = flag(extra, "--containers").unwrap_or("8");
    let workers = flag(extra, "--workers").unwrap_or("2");
    let deadline = flag(extra, "--deadline").unwrap_or("2s");
    let rate = flag(extra, "--rate");
    let fault_share = flag(extra, "--fault-share");
    let fault_kinds = flag(extra, "--fault-kinds");
    let has = |name: &str| extra.iter().any(|a| a == name);
    let http2 = has("--http2");
    let sweep: Vec<String> = match flag(extra, "--sweep") {
        Some(list) => list.split(',').map(|c| c.trim().to_owned()).collect(),
        None => vec![flag(extra, "--concurrency").unwrap_or("16").to_owned()],
    };
    let mut build = cargo();
    build.args(["build", "--release", "--package", "podmut"]);
    run(build)?;
    let bin = target_dir().join("release").join("podmut");
    let policy = if has("--misbehave") {
        Some(build_misbehave()?)
    } else {
        flag(extra, "--policy").map(PathBuf::from)
    };
    if fault_share.is_some() && policy.is_none() {
        eprintln!("xtask: note: --fault-share without --misbehave: the real component ignores the markers");
    }
    let client = build_load_tool()?;
    let out = target_dir().join("podmut-load");
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let ca = out.join("ca.pem");
    let _ = std::fs::remove_file(&ca);
    let addr = ephemeral_addr()?;
    let mut serve = Command::new(&bin);
    serve.args([
        "serve",
        "--self-signed",
        "--addr",
        &addr,
        "--workers",
        workers,
        "--deadline",
        deadline,
        "--log-level",
        "error",
        "--ca-out",
    ]);
    serve.arg(&ca);
    if let Some(p) = &policy {
        serve.arg("--policy").arg(p);
    }
    eprintln!("$ {}", describe(&serve));
    let mut server = serve
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let mut wasmtime = None;
    let result = (|| -> Result {
        wait_for_file(&ca, &mut server)?;
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
            let mut c = Command::new(&client);
            c.args(["--url", &format!("https://{addr}/validate"), "--wait-ready"])
                .arg("--ca")
                .arg(&ca);
            base(&mut c, "podmut-serve-https");
            if soak.is_some() || fault_share.is_some() {
                c.arg("--metrics-after");
            }
            if soak.is_some() {
                c.args(["--rss-pid", &server.id().to_string(), "--sample-every", "10s"])
                    .arg("--samples-out")
                    .arg(out.join("soak-rss.tsv"));
            }
            run(c)?;
            if let Some(ws_addr) = &ws_addr {
                let mut c = Command::new(&client);
                c.args(["--url", &format!("http://{ws_addr}/validate")]);
                base(&mut c, "wasmtime-serve-http");
                run(c)?;
            }
        }
        Ok(())
    })();
    stop_gracefully(&mut server);
    if let Some(mut ws) = wasmtime {
        let _ = ws.kill();
        let _ = ws.wait();
    }
    result
}

/// A free loopback address with a port chosen by the kernel.
fn ephemeral_addr() -> Result<String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.to_string())
        .map_err(|e| format!("cannot find a free port: {e}"))
}

/// Wait (up to 120 s: `wasmtime serve` compiles the component first) until `addr` accepts TCP.
fn wait_for_port(addr: &str) -> Result {
    for _ in 0..1200 {
        if std::net::TcpStream::connect(addr).is_ok() {
            return Ok(());
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    Err(format!("nothing listens on {addr} after 120 s"))
}

/// Build the misbehaving test component (tests/misbehave) and return its path.
fn build_misbehave() -> Result<PathBuf> {
    build_component("podmut-misbehave", "podmut_misbehave.wasm")
}
