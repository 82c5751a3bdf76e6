//! `podmut`: see `podmut --help`. All logic lives in the library (`podmut::cli`).
//!
//! The binary also carries the component's precompiled machine code when the release build made
//! one (`cargo xtask dist` sets `PODMUT_PRECOMPILED` to the artefact; `.cargo/config.toml` points it
//! at an empty file otherwise). It is included here, in the binary crate, so that adding it
//! relinks only the binary: the library and everything built on it stay as they are.

/// The static (musl) binary allocates with mimalloc: musl's malloc serves the webhook ~20% fewer
/// reviews per second than glibc's (BENCHMARKS.md, "musl vs glibc"). Other builds keep the
/// platform's allocator. (Its `memcpy` and `memmove` are the library's, not musl's:
/// host/src/memcopy.rs.)
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The artefact `podmut precompile` wrote, or nothing.
static PRECOMPILED: &[u8] = include_bytes!(env!("PODMUT_PRECOMPILED"));

fn main() -> std::process::ExitCode {
    podmut::precompiled::embed(PRECOMPILED);
    podmut::cli::main()
}
