//! `podmut`: see `podmut --help`. All logic lives in the library (`podmut::cli`).
//!
//! The binary also carries the component's precompiled machine code when the release build made
//! one (`cargo xtask dist` sets `PODMUT_PRECOMPILED` to the artefact; `.cargo/config.toml` points it
//! at an empty file otherwise). It is included here, in the binary crate, so that adding it
//! relinks only the binary: the library and everything built on it stay as they are.

/// The static (musl) binary allocates with mimalloc: musl's malloc serves the webhook ~20% fewer
/// reviews per second than glibc's (BENCHMARKS.md, "musl vs glibc"). Other builds keep the
/// platform's allocator.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Bytes that start on a page boundary (4 KiB; a larger page only costs the copy fallback).
#[repr(C, align(4096))]
struct PageAligned<Bytes: ?Sized>(Bytes);

/// The artefact `podmut precompile` wrote, or nothing. Its machine code comes first, page-aligned
/// here, so that it runs where it lies in the binary instead of being copied on every start
/// (`podmut::precompiled`).
static PRECOMPILED: &PageAligned<[u8]> = &PageAligned(*include_bytes!(env!("PODMUT_PRECOMPILED")));

fn main() -> std::process::ExitCode {
    podmut::precompiled::embed(&PRECOMPILED.0);
    podmut::cli::main()
}
