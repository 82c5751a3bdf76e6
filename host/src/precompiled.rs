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
//! Artefact layout: wasmtime's serialized component, the SHA-256 (hex) of the component it was
//! compiled from, then [`MAGIC`]. A mismatching digest (an artefact from another build) is never
//! loaded. The machine code comes first so that it starts where the artefact starts: `main.rs`
//! embeds the artefact page-aligned, and on x86-64 Linux the code is then used where it lies in
//! the binary (`Component::deserialize_raw`, published by [`crate::code_memory`]) instead of being
//! copied into fresh memory on every start (BENCHMARKS.md, "The CLI").

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use wasmtime::component::Component;
use wasmtime::{Engine, Precompiled};

use crate::engine::Allocation;
use crate::error::HostError;
use crate::version::sha256_hex;

/// The last bytes of a podmut artefact.
const MAGIC: &[u8; 16] = b"podmut-cwasm-v2\0";

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
    let mut config = crate::engine::config(Allocation::OnDemand);
    // An explicit target: Cranelift then uses the architecture's baseline flags instead of
    // detecting the build machine's CPU features.
    config
        .target(&format!("{}-unknown-linux-gnu", std::env::consts::ARCH))
        .map_err(HostError::Engine)?;
    let engine = Engine::new(&config).map_err(HostError::Engine)?;
    let code = engine
        .precompile_component(component)
        .map_err(HostError::Compile)?;
    Ok(seal(code, &sha256_hex(component)))
}

/// The artefact of machine `code` compiled from the component with digest `component_sha256`.
fn seal(mut code: Vec<u8>, component_sha256: &str) -> Vec<u8> {
    code.reserve_exact(DIGEST_LEN + MAGIC.len());
    code.extend_from_slice(component_sha256.as_bytes());
    code.extend_from_slice(MAGIC);
    code
}

/// The embedded component from the embedded artefact, or `None` (no artefact, or one that does
/// not fit this engine or CPU: then one note on stderr per process, and the caller compiles).
pub(crate) fn load_embedded(engine: &Engine) -> Option<Component> {
    let artefact = EMBEDDED.get()?;
    match load_static(engine, artefact, crate::version::COMPONENT_SHA256) {
        Ok((c, _)) => Some(c),
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

/// How [`load_static`] loaded the machine code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placement {
    /// Used where it lies, made executable in place.
    InPlace,
    /// Copied into memory wasmtime maps for it.
    Copied,
}

/// Deserialize `artefact` (one that lives as long as the process and is never written: the one
/// the binary embeds) if it was compiled from the component with digest `component_sha256` and
/// fits `engine`; otherwise why not. Its machine code is used in place when it starts on a page
/// boundary and the engine can publish it there (x86-64 Linux, unless the kernel refuses),
/// else copied.
pub(crate) fn load_static(
    engine: &Engine,
    artefact: &'static [u8],
    component_sha256: &str,
) -> Result<(Component, Placement), String> {
    let code = machine_code(artefact, component_sha256)?;
    if in_place_possible(code)
        && let Ok(c) = deserialize_in_place(engine, code)
    {
        return Ok((c, Placement::InPlace));
    }
    deserialize(engine, code)
        .map(|c| (c, Placement::Copied))
        .map_err(|e| format!("{e:#}"))
}

/// The machine code inside `artefact`, if it is a podmut artefact of this component.
fn machine_code<'a>(artefact: &'a [u8], component_sha256: &str) -> Result<&'a [u8], String> {
    let rest = artefact
        .strip_suffix(MAGIC.as_slice())
        .ok_or("not a podmut artefact")?;
    let (code, digest) = rest
        .split_at_checked(rest.len().saturating_sub(DIGEST_LEN))
        .filter(|(_, d)| d.len() == DIGEST_LEN)
        .ok_or("not a podmut artefact")?;
    if digest != component_sha256.as_bytes() {
        return Err("it was compiled from another component".into());
    }
    if Engine::detect_precompiled(code) != Some(Precompiled::Component) {
        return Err("not a wasmtime component artefact".into());
    }
    Ok(code)
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn in_place_possible(code: &[u8]) -> bool {
    (code.as_ptr() as usize).is_multiple_of(crate::code_memory::page_size())
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
fn in_place_possible(_code: &[u8]) -> bool {
    false
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

#[expect(
    unsafe_code,
    reason = "wasmtime requires unsafe to load precompiled machine code"
)]
fn deserialize_in_place(engine: &Engine, code: &'static [u8]) -> wasmtime::Result<Component> {
    // SAFETY: as `deserialize`; in addition `deserialize_raw` needs the memory to outlive the
    // component and never be written: it is `'static` and the embedded artefact is read-only
    // data of the binary. wasmtime reads it in place and publishes its text section through
    // the engine's `crate::code_memory` (mprotect to read + execute).
    unsafe { Component::deserialize_raw(engine, std::ptr::NonNull::from(code)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty component: the artefact checks below need machine code for some component, not a
    /// particular one (the embedded component's artefact runs in `crate::runtime`'s tests).
    const EMPTY: &[u8] = b"\0asm\x0d\0\x01\0";

    /// [`load_static`] on an artefact that is copied first (tests only: the copy path).
    fn load(engine: &Engine, artefact: &[u8], component_sha256: &str) -> Result<Component, String> {
        let code = machine_code(artefact, component_sha256)?;
        deserialize(engine, code).map_err(|e| format!("{e:#}"))
    }

    fn engine(pooling: bool) -> Engine {
        let allocation = if pooling {
            Allocation::Pooling {
                instances: 64,
                memory_limit: 256 << 20,
            }
        } else {
            Allocation::OnDemand
        };
        Engine::new(&crate::engine::config(allocation)).unwrap()
    }

    #[test]
    fn baseline_artefact_loads_in_pooled_and_on_demand_engines_and_refuses_mismatches() {
        let artefact = precompile(EMPTY).unwrap();
        let digest = sha256_hex(EMPTY);
        for pooling in [false, true] {
            let e = engine(pooling);
            assert!(load(&e, &artefact, &digest).is_ok(), "pooling {pooling}");
        }
        let e = engine(false);
        // Another component's artefact.
        let other = "0".repeat(64);
        assert_eq!(
            load(&e, &artefact, &other).err().as_deref(),
            Some("it was compiled from another component")
        );
        // Not an artefact at all.
        assert!(load(&e, b"garbage", &digest).is_err());
        // Machine code for another engine configuration (no epoch interruption): wasmtime refuses
        // it and the caller compiles instead.
        let mut config = crate::engine::config(Allocation::OnDemand);
        config.epoch_interruption(false);
        let code = Engine::new(&config).unwrap().precompile_component(EMPTY).unwrap();
        let foreign = seal(code, &digest);
        let why = load(&e, &foreign, &digest).err().unwrap();
        assert!(why.contains("epoch"), "{why}");
    }
}
