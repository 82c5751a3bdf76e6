//! Builds the podmut component (`podmut-guest` for `wasm32-wasip2`) and embeds it in the host.
//!
//! The component is built by a nested `cargo build` into its own target directory beside the outer
//! one (the outer build holds the lock on its own directory), the pattern wasmtime's
//! `test-programs/artifacts/build.rs` uses. Set `PODMUT_GUEST_WASM=/path/podmut.wasm` to embed a
//! prebuilt component instead.

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "a build script reports failure by panicking"
)]

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=PODMUT_GUEST_WASM");
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let dest = out_dir.join("podmut.wasm");

    if let Some(prebuilt) = env::var_os("PODMUT_GUEST_WASM") {
        let prebuilt = PathBuf::from(prebuilt);
        println!("cargo:rerun-if-changed={}", prebuilt.display());
        std::fs::copy(&prebuilt, &dest)
            .unwrap_or_else(|e| panic!("cannot copy PODMUT_GUEST_WASM {}: {e}", prebuilt.display()));
        return;
    }

    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir
        .parent()
        .expect("host/ lives in the workspace")
        .to_path_buf();
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
    cmd.current_dir(&workspace)
        .args([
            "build",
            "--package",
            "podmut-guest",
            "--target",
            "wasm32-wasip2",
            "--release",
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
    let built = target_dir
        .join("wasm32-wasip2")
        .join("release")
        .join("podmut_guest.wasm");
    copy_if_changed(&built, &dest);
}

fn copy_if_changed(from: &Path, to: &Path) {
    let bytes = std::fs::read(from).unwrap_or_else(|e| panic!("cannot read {}: {e}", from.display()));
    if std::fs::read(to).ok().as_deref() != Some(&bytes[..]) {
        std::fs::write(to, &bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", to.display()));
    }
}
