//! The embedded component's machine code, compiled when the release binary is built
//! (`cargo xtask dist`: `podmut precompile`, then the binary is relinked with the result, see
//! `src/main.rs`). The first run on a machine then deserializes instead of compiling the 5 MB
//! component, with or without a cache directory (`podmut serve --no-cache` on a read-only root).
//!
//! The code targets the baseline ISA of the build's architecture (x86-64: SSE2), not the build
//! machine's CPU: it runs on every CPU of that architecture and the release is the same whatever
//! machine built it. wasmtime checks the artefact against the running engine (version, settings,
//! CPU features) when it is loaded; if it does not fit, podmut says so once on stderr and compiles
//! the component as it would without an artefact. The component bytes themselves are unchanged:
//! `podmut component` and `componentSha256` are exactly what ships.
//!
//! Artefact layout: [`MAGIC`], the SHA-256 (hex) of the component it was compiled from, then
//! wasmtime's serialized component. A mismatching digest (an artefact from another build) is never
//! loaded.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use sha2::{Digest, Sha256};
use wasmtime::component::Component;
use wasmtime::{Engine, Precompiled};

use crate::error::HostError;
use crate::runtime::{RuntimeOptions, engine_config};

/// The first bytes of a podmut artefact.
const MAGIC: &[u8; 16] = b"podmut-cwasm-v1\0";

/// Hex SHA-256 length.
const DIGEST_LEN: usize = 64;

static EMBEDDED: OnceLock<&'static [u8]> = OnceLock::new();
static NOTED: AtomicBool = AtomicBool::new(false);

/// Register the artefact the binary embeds (empty: none). Called once by `main`.
pub fn embed(artefact: &'static [u8]) {
    if !artefact.is_empty() {
        let _ = EMBEDDED.set(artefact);
    }
}

/// Whether this binary carries precompiled machine code for its component.
pub fn is_embedded() -> bool {
    EMBEDDED.get().is_some()
}

/// Compile `component` for the baseline ISA of this architecture under podmut's engine
/// configuration, returning the artefact `src/main.rs` embeds.
pub fn precompile(component: &[u8]) -> Result<Vec<u8>, HostError> {
    let mut config = engine_config(&RuntimeOptions {
        pooling: false,
        ..RuntimeOptions::default()
    });
    // An explicit target: Cranelift then uses the architecture's baseline flags instead of
    // detecting the build machine's CPU features.
    config
        .target(&format!("{}-unknown-linux-gnu", std::env::consts::ARCH))
        .map_err(HostError::Engine)?;
    let engine = Engine::new(&config).map_err(HostError::Engine)?;
    let code = engine
        .precompile_component(component)
        .map_err(HostError::Compile)?;
    let mut out = Vec::with_capacity(MAGIC.len() + DIGEST_LEN + code.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(hex(&Sha256::digest(component)).as_bytes());
    out.extend_from_slice(&code);
    Ok(out)
}

/// The embedded component from the embedded artefact, or `None` (no artefact, or one that does
/// not fit this engine or CPU: then one note on stderr per process, and the caller compiles).
pub(crate) fn load_embedded(engine: &Engine) -> Option<Component> {
    let artefact = EMBEDDED.get()?;
    match load(engine, artefact, crate::version::COMPONENT_SHA256) {
        Ok(c) => Some(c),
        Err(why) => {
            if !NOTED.swap(true, Ordering::Relaxed) {
                eprintln!(
                    "podmut: note: the precompiled machine code in this binary cannot be used here \
                     ({why}); compiling the component instead"
                );
            }
            None
        }
    }
}

/// Deserialize `artefact` if it was compiled from the component with digest `component_sha256`
/// and fits `engine`; otherwise why not.
pub(crate) fn load(engine: &Engine, artefact: &[u8], component_sha256: &str) -> Result<Component, String> {
    let rest = artefact
        .strip_prefix(MAGIC.as_slice())
        .ok_or("not a podmut artefact")?;
    if rest.len() < DIGEST_LEN || &rest[..DIGEST_LEN] != component_sha256.as_bytes() {
        return Err("it was compiled from another component".into());
    }
    let code = &rest[DIGEST_LEN..];
    if Engine::detect_precompiled(code) != Some(Precompiled::Component) {
        return Err("not a wasmtime component artefact".into());
    }
    deserialize(engine, code).map_err(|e| format!("{e:#}"))
}

#[expect(
    unsafe_code,
    reason = "wasmtime requires unsafe to load precompiled machine code"
)]
fn deserialize(engine: &Engine, code: &[u8]) -> wasmtime::Result<Component> {
    // SAFETY: the bytes are compiled into this binary by its own build (`podmut precompile` on
    // the component embedded beside them, checked by digest above); wasmtime checks the header,
    // its version, the engine settings and the CPU features before using them.
    unsafe { Component::deserialize(engine, code) }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::EMBEDDED_COMPONENT;
    use crate::version::COMPONENT_SHA256;

    fn engine(pooling: bool) -> Engine {
        Engine::new(&engine_config(&RuntimeOptions {
            pooling,
            ..RuntimeOptions::default()
        }))
        .unwrap()
    }

    #[test]
    fn baseline_artefact_loads_in_pooled_and_on_demand_engines_and_refuses_mismatches() {
        let artefact = precompile(EMBEDDED_COMPONENT).unwrap();
        for pooling in [false, true] {
            let e = engine(pooling);
            assert!(load(&e, &artefact, COMPONENT_SHA256).is_ok(), "pooling {pooling}");
        }
        let e = engine(false);
        // Another component's artefact.
        let other = "0".repeat(64);
        assert_eq!(
            load(&e, &artefact, &other).err().as_deref(),
            Some("it was compiled from another component")
        );
        // Not an artefact at all.
        assert!(load(&e, b"garbage", COMPONENT_SHA256).is_err());
        // Machine code for another engine configuration (no epoch interruption): wasmtime refuses
        // it and the caller compiles instead.
        let mut config = engine_config(&RuntimeOptions {
            pooling: false,
            ..RuntimeOptions::default()
        });
        config.epoch_interruption(false);
        let code = Engine::new(&config)
            .unwrap()
            .precompile_component(EMBEDDED_COMPONENT)
            .unwrap();
        let mut foreign = MAGIC.to_vec();
        foreign.extend_from_slice(COMPONENT_SHA256.as_bytes());
        foreign.extend_from_slice(&code);
        let why = load(&e, &foreign, COMPONENT_SHA256).err().unwrap();
        assert!(why.contains("epoch"), "{why}");
    }
}
