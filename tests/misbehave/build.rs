//! Natively, builds this same crate for `wasm32-wasip2` with a nested cargo (the pattern of
//! wasmtime's `test-programs/artifacts/build.rs`) so `COMPONENT` can embed it, or embeds the
//! prebuilt `PODMUT_MISBEHAVE_WASM`. For the wasm32 target itself there is nothing to do.

#![expect(
    clippy::expect_used,
    clippy::panic,
    reason = "a build script reports failure by panicking"
)]

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    if env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        return;
    }
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let dest = out_dir.join("podmut_misbehave.wasm");
    // `cargo xtask` builds the component once for every consumer and passes it in.
    println!("cargo:rerun-if-env-changed=PODMUT_MISBEHAVE_WASM");
    println!("cargo:rerun-if-env-changed=PODMUT_MISBEHAVE_NAMES");
    println!("cargo:rerun-if-env-changed=PODMUT_WASM_OPT");
    if let Some(prebuilt) = env::var_os("PODMUT_MISBEHAVE_WASM") {
        let prebuilt = PathBuf::from(prebuilt);
        println!("cargo:rerun-if-changed={}", prebuilt.display());
        let bytes = std::fs::read(&prebuilt)
            .unwrap_or_else(|e| panic!("cannot read PODMUT_MISBEHAVE_WASM {}: {e}", prebuilt.display()));
        let names = env::var_os("PODMUT_MISBEHAVE_NAMES").map(|file| {
            println!("cargo:rerun-if-changed={}", PathBuf::from(&file).display());
            std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("cannot read PODMUT_MISBEHAVE_NAMES {}: {e}", file.display()))
        });
        let (component, names) = podmut_splice::prebuilt(&bytes, names.as_deref())
            .unwrap_or_else(|e| panic!("PODMUT_MISBEHAVE_WASM / PODMUT_MISBEHAVE_NAMES: {e}"));
        write_if_changed(&dest, &component);
        write_if_changed(&names_of(&dest), names.to_text().as_bytes());
        return;
    }
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir
        .ancestors()
        .nth(2)
        .expect("tests/misbehave lives in the workspace")
        .to_path_buf();
    for input in ["src", "Cargo.toml"] {
        println!("cargo:rerun-if-changed={}", manifest_dir.join(input).display());
    }
    for input in ["wit", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={}", workspace.join(input).display());
    }
    // Share the nested target directory host/build.rs uses for the real component (same key), so
    // wit-bindgen is compiled for wasm32 once per checkout.
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
    cmd.current_dir(&workspace)
        .args([
            "build",
            "--package",
            "podmut-misbehave",
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
    let status = cmd
        .status()
        .expect("cannot run cargo for the misbehaving component");
    assert!(status.success(), "building the misbehaving test component failed");
    // Through the same step as the real component (wasm-opt when installed, names split off), so
    // the host's trap tests see what a release does.
    let out = target_dir.join("wasm32-wasip2").join("guest");
    let wasm_opt = podmut_splice::wasm_opt();
    let shipped = podmut_splice::optimise_file(
        &out.join("podmut_misbehave.wasm"),
        &out,
        "podmut-misbehave",
        wasm_opt.as_deref(),
    )
    .unwrap_or_else(|e| panic!("making the misbehaving component: {e}"));
    let read = |path: &std::path::Path| {
        std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
    };
    write_if_changed(&dest, &read(&shipped.component));
    write_if_changed(&names_of(&dest), &read(&shipped.names));
}

/// The names file beside a component (`X.wasm.names`).
fn names_of(dest: &std::path::Path) -> PathBuf {
    let mut name = dest.as_os_str().to_owned();
    name.push(".names");
    PathBuf::from(name)
}

fn write_if_changed(dest: &std::path::Path, bytes: &[u8]) {
    if std::fs::read(dest).ok().as_deref() != Some(bytes) {
        std::fs::write(dest, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", dest.display()));
    }
}
