//! Link settings of the component's linear memory.
//!
//! The initial memory is 4 MiB instead of the linker's minimum (the 1 MiB stack, which comes first,
//! plus the data segment: ~1.3 MiB). wasi-libc's allocator takes the memory between the data and
//! the initial end as its first heap, so a review of a few containers never calls `memory.grow`;
//! under wasmtime's pooling allocator every growth was an `mprotect` and undoing it on the next
//! instance another, about 10 µs of a fresh-instance review.
//! Hosts reserve the 4 MiB but only the pages a call touches are ever backed.

/// Initial linear memory, bytes (a multiple of the 64 KiB WebAssembly page).
const INITIAL_MEMORY: u32 = 4 << 20;

fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-cdylib-link-arg=--initial-memory={INITIAL_MEMORY}");
    }
}
