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
    if let Some(prebuilt) = env::var_os("PODMUT_MISBEHAVE_WASM") {
        let prebuilt = PathBuf::from(prebuilt);
        println!("cargo:rerun-if-changed={}", prebuilt.display());
        let bytes = std::fs::read(&prebuilt)
            .unwrap_or_else(|e| panic!("cannot read PODMUT_MISBEHAVE_WASM {}: {e}", prebuilt.display()));
        write_if_changed(&dest, &bytes);
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
    let built = target_dir
        .join("wasm32-wasip2")
        .join("guest")
        .join("podmut_misbehave.wasm");
    let bytes = std::fs::read(&built).unwrap_or_else(|e| panic!("cannot read {}: {e}", built.display()));
    write_if_changed(&dest, &bytes);
}

fn write_if_changed(dest: &std::path::Path, bytes: &[u8]) {
    if std::fs::read(dest).ok().as_deref() != Some(bytes) {
        std::fs::write(dest, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", dest.display()));
    }
}
