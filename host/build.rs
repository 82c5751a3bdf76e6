//! Builds the podmut component (`podmut-guest` for `wasm32-wasip2`) and embeds it in the host, and
//! records the build facts `podmut version` prints (see `src/version.rs`).
//!
//! The component is built by a nested `cargo build` into its own target directory beside the outer
//! one (the outer build holds the lock on its own directory), the pattern wasmtime's
//! `test-programs/artifacts/build.rs` uses, then made into the shipped component by
//! `podmut_splice::optimise_file`: the core module through binaryen's `wasm-opt` when it is
//! installed (else as cargo built it), its function names split off into `podmut.wasm.names`,
//! which the host embeds too and names guest functions in trap backtraces from. Set
//! `PODMUT_GUEST_WASM=/path/podmut.wasm` to embed a prebuilt component instead (`cargo xtask`
//! does, with the optimised file, and `PODMUT_GUEST_NAMES` for its names file); a prebuilt
//! component that still has function names gets them split off here.

#![expect(
    clippy::expect_used,
    clippy::panic,
    reason = "a build script reports failure by panicking"
)]

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=PODMUT_GUEST_WASM");
    println!("cargo:rerun-if-env-changed=PODMUT_GUEST_NAMES");
    println!("cargo:rerun-if-env-changed=PODMUT_WASM_OPT");
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let dest = out_dir.join("podmut.wasm");
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir
        .parent()
        .expect("host/ lives in the workspace")
        .to_path_buf();

    if let Some(prebuilt) = env::var_os("PODMUT_GUEST_WASM") {
        let prebuilt = PathBuf::from(prebuilt);
        println!("cargo:rerun-if-changed={}", prebuilt.display());
        let bytes = std::fs::read(&prebuilt)
            .unwrap_or_else(|e| panic!("cannot read PODMUT_GUEST_WASM {}: {e}", prebuilt.display()));
        embed_prebuilt(&bytes, &dest);
    } else {
        build_guest(&workspace, &out_dir, &dest);
    }
    embed_web(&workspace, &out_dir, &dest);
    build_facts(&workspace, &dest);
    link_settings();
}

/// The static Linux binary (musl, static-pie) with its relative relocations packed (`DT_RELR`,
/// musl 1.2.4+ applies them at start): 1.3 MB of `.rela.dyn` the loader read at every start
/// become a few KB (BENCHMARKS.md, "Size"). Only the binaries, only musl: a glibc
/// build would need glibc 2.36+ wherever it runs. A linker without the option ignores `-z`
/// options it does not know, with a warning.
fn link_settings() {
    let target = |key: &str| env::var(key).unwrap_or_default();
    if target("CARGO_CFG_TARGET_OS") == "linux" && target("CARGO_CFG_TARGET_ENV") == "musl" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Build the component with a nested cargo into its own target directory and copy it to `dest`.
fn build_guest(workspace: &Path, out_dir: &Path, dest: &Path) {
    for input in ["core", "guest", "wit", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={}", workspace.join(input).display());
    }

    // OUT_DIR is <target>[/<triple>]/<profile>/build/<pkg>-<hash>/out; share one guest build
    // between debug and release hosts of this checkout (keyed by the workspace path, so several
    // checkouts can share one target directory without overwriting each other's component).
    let key = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        workspace.hash(&mut h);
        format!("podmut-guest-{:016x}", h.finish())
    };
    let target_dir = out_dir
        .ancestors()
        .nth(4)
        .map_or_else(|| out_dir.join("guest-target"), |t| t.join(&key));
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(workspace)
        .args([
            "build",
            "--package",
            "podmut-guest",
            "--target",
            "wasm32-wasip2",
            "--profile",
            "guest",
        ])
        .env("CARGO_TARGET_DIR", &target_dir);
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_BUILD_TARGET",
        "CARGO_PRIMARY_PACKAGE",
        "TARGET",
        "HOST",
        "PROFILE",
        "OPT_LEVEL",
        "DEBUG",
        "CARGO_CFG_TARGET_FEATURE",
    ] {
        cmd.env_remove(var);
    }
    let status = cmd.status().expect("cannot run cargo for the guest");
    assert!(
        status.success(),
        "building the podmut component failed (is the target installed? `rustup target add wasm32-wasip2`)"
    );
    let out = target_dir.join("wasm32-wasip2").join("guest");
    let wasm_opt = podmut_splice::wasm_opt();
    let shipped = podmut_splice::optimise_file(
        &out.join("podmut_guest.wasm"),
        &out,
        "podmut",
        wasm_opt.as_deref(),
    )
    .unwrap_or_else(|e| panic!("making the shipped component: {e}"));
    if shipped.wasm_opt.is_none() {
        println!(
            "cargo:warning=podmut: wasm-opt (binaryen) not found: the component is embedded as cargo built it, \
             not optimised (function names split off as in a release; `apt-get install binaryen` or PODMUT_WASM_OPT)"
        );
    }
    let read =
        |path: &Path| std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    write_if_changed(dest, &read(&shipped.component));
    write_if_changed(&names_path(dest), &read(&shipped.names));
}

/// Where the names file of the component at `dest` is written (`podmut.wasm.names`).
fn names_path(dest: &Path) -> PathBuf {
    let mut name = dest.as_os_str().to_owned();
    name.push(".names");
    PathBuf::from(name)
}

/// Embed a prebuilt component: its function names split off if it still has them, else the names
/// file `PODMUT_GUEST_NAMES` (which must name this component), else none (traps then show
/// function indexes).
fn embed_prebuilt(bytes: &[u8], dest: &Path) {
    let names_file = env::var_os("PODMUT_GUEST_NAMES").map(PathBuf::from);
    let text = names_file.as_ref().map(|file| {
        println!("cargo:rerun-if-changed={}", file.display());
        std::fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("cannot read PODMUT_GUEST_NAMES {}: {e}", file.display()))
    });
    let (component, names) = podmut_splice::prebuilt(bytes, text.as_deref())
        .unwrap_or_else(|e| panic!("PODMUT_GUEST_WASM / PODMUT_GUEST_NAMES: {e}"));
    write_if_changed(dest, &component);
    write_if_changed(&names_path(dest), names.to_text().as_bytes());
}

/// The facts `podmut version` reports, as `rustc-env` variables for `src/version.rs`:
/// `PODMUT_GIT_COMMIT` (`$PODMUT_GIT_COMMIT`, else `git rev-parse HEAD`, else `unknown`),
/// `PODMUT_COMPONENT_SHA256` (of the embedded bytes) and `PODMUT_WASMTIME_VERSION` (from Cargo.lock).
fn build_facts(workspace: &Path, component: &Path) {
    use sha2::Digest as _;
    let bytes =
        std::fs::read(component).unwrap_or_else(|e| panic!("cannot read {}: {e}", component.display()));
    let digest: String = sha2::Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    println!("cargo:rustc-env=PODMUT_COMPONENT_SHA256={digest}");

    let lock = workspace.join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let lock = std::fs::read_to_string(&lock).unwrap_or_default();
    let wasmtime = locked_version(&lock, "wasmtime").unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=PODMUT_WASMTIME_VERSION={wasmtime}");

    println!("cargo:rustc-env=PODMUT_GIT_COMMIT={}", git_commit(workspace));
}

/// The version of `package` in a Cargo.lock.
fn locked_version(lock: &str, package: &str) -> Option<String> {
    let needle = format!("name = \"{package}\"\n");
    let rest = &lock[lock.find(&needle)? + needle.len()..];
    let line = rest.lines().next()?.strip_prefix("version = \"")?;
    Some(line.trim_end_matches('"').to_owned())
}

/// The commit being built; rebuilds when HEAD moves (a new commit or a checkout).
fn git_commit(workspace: &Path) -> String {
    println!("cargo:rerun-if-env-changed=PODMUT_GIT_COMMIT");
    if let Some(commit) = env::var_os("PODMUT_GIT_COMMIT") {
        return commit.to_string_lossy().into_owned();
    }
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git")
            .current_dir(workspace)
            .args(args)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let Some(commit) = git(&["rev-parse", "HEAD"]) else {
        return "unknown".to_owned();
    };
    // HEAD itself, the branch it points to, and packed-refs (where a branch may live instead).
    // Only files that exist: cargo reruns a build script on every build for a missing one.
    let mut watched = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for path in &watched {
        if let Some(p) = git(&["rev-parse", "--path-format=absolute", "--git-path", path])
            && Path::new(&p).is_file()
        {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    commit
}

/// Write `$OUT_DIR/web_assets.rs`: the playground's own files (`web/*.html|js|css`) always, and the
/// jco output in `web/pkg/` (written by `cargo xtask web`, which needs npm) only when it was
/// transpiled from exactly the component embedded here (`web/pkg/podmut.wasm` has the same bytes).
/// So `cargo build` works on a fresh machine without npm; the playground then says how to add it.
fn embed_web(workspace: &Path, out_dir: &Path, component: &Path) {
    let web = workspace.join("web");
    let pkg = web.join("pkg");
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    for name in [
        "index.html",
        "app.js",
        "editor.js",
        "examples.js",
        "policies.js",
        "vap-samples.js",
        "rules.html",
        "rules.js",
        "style.css",
    ] {
        let path = web.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        if path.is_file() {
            files.push((name.to_owned(), path));
        }
    }
    println!("cargo:rerun-if-changed={}", pkg.display());
    let component = std::fs::read(component).unwrap_or_default();
    let missing = match std::fs::read(pkg.join("podmut.wasm")) {
        Err(_) => "web/pkg is not built (run `cargo xtask web`, which needs Node.js and npm, then rebuild)"
            .to_owned(),
        Ok(bytes) if bytes != component => {
            "web/pkg was transpiled from another build of the component (run `cargo xtask web` again)"
                .to_owned()
        }
        Ok(_) => {
            let mut stack = vec![pkg.clone()];
            while let Some(dir) = stack.pop() {
                let Ok(entries) = std::fs::read_dir(&dir) else {
                    continue;
                };
                for entry in entries.flatten() {
                    let path = entry.path();
                    if path.is_dir() {
                        stack.push(path);
                    } else if let Ok(rel) = path.strip_prefix(&web) {
                        files.push((rel.to_string_lossy().replace('\\', "/"), path));
                    }
                }
            }
            String::new()
        }
    };
    files.sort();
    let gz_dir = out_dir.join("web-gzip");
    std::fs::create_dir_all(&gz_dir).expect("cannot create OUT_DIR/web-gzip");
    let mut code = String::from(
        "/// Playground files: path under web/, bytes, and their gzip encoding where it is served.\npub(crate) static WEB_ASSETS: &[WebAsset] = &[\n",
    );
    // jco writes each core module of the component as its own file (`podmut.core*.wasm`): those
    // are ranges of the embedded component, served from it (one copy of the bytes in the binary).
    let modules = podmut_splice::core_modules(&component).unwrap_or_default();
    for (name, path) in &files {
        // web/pkg/podmut.wasm has exactly the component's bytes (checked above): one copy of
        // them in the binary, not two.
        let in_component = name
            .ends_with(".wasm")
            .then(|| std::fs::read(path).ok())
            .flatten()
            .and_then(|bytes| {
                modules
                    .iter()
                    .find(|r| component.get((*r).clone()) == Some(&bytes[..]))
            });
        let bytes = if name == "pkg/podmut.wasm" {
            "crate::runtime::EMBEDDED_COMPONENT".to_owned()
        } else if let Some(range) = in_component {
            format!(
                "crate::runtime::embedded_component_range({}, {})",
                range.start,
                range.len()
            )
        } else {
            format!("include_bytes!({:?})", path.display().to_string())
        };
        let gzip = match gzip_file(path, name, &gz_dir) {
            Some(gz) => format!("Some(include_bytes!({:?}))", gz.display().to_string()),
            None => "None".to_owned(),
        };
        code.push_str(&format!(
            "    WebAsset {{ path: {name:?}, bytes: {bytes}, gzip: {gzip} }},\n"
        ));
    }
    code.push_str("];\n/// Why the transpiled component is not embedded (empty when it is).\n");
    code.push_str(&format!(
        "pub(crate) static WEB_PKG_MISSING: &str = {missing:?};\n"
    ));
    println!("cargo::rustc-check-cfg=cfg(podmut_no_web_pkg)");
    if !missing.is_empty() {
        println!("cargo:warning=podmut playground: {missing}");
        println!("cargo::rustc-cfg=podmut_no_web_pkg");
    }
    std::fs::write(out_dir.join("web_assets.rs"), code).expect("cannot write web_assets.rs");
}

fn write_if_changed(to: &Path, bytes: &[u8]) {
    if std::fs::read(to).ok().as_deref() != Some(bytes) {
        std::fs::write(to, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", to.display()));
    }
}

/// The gzip encoding (level 9) the playground serves for `name` to browsers that accept it, written
/// under `dir`; `None` for the whole component (`pkg/podmut.wasm`: the page never fetches it, it is
/// there so `web/pkg` can be checked against the embedded bytes) and where gzip saves under 10 %.
/// Compressed once here rather than per request (the page is 3.4 MB raw, 1.15 MB gzip): the same
/// bytes every build (flate2 writes no time stamp), so the binary stays reproducible.
fn gzip_file(path: &Path, name: &str, dir: &Path) -> Option<PathBuf> {
    use std::io::Write;
    if name == "pkg/podmut.wasm" {
        return None;
    }
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&raw).expect("gzip into memory");
    let gz = enc.finish().expect("gzip into memory");
    if gz.len() * 10 > raw.len() * 9 {
        return None;
    }
    let dest = dir.join(format!("{}.gz", name.replace('/', "__")));
    std::fs::write(&dest, gz).unwrap_or_else(|e| panic!("cannot write {}: {e}", dest.display()));
    Some(dest)
}
