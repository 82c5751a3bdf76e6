//! `cargo +nightly fuzz run coverage`: structure-aware inputs (a seed from fuzz/corpus/coverage/, a NUL, then
//! the mutation plan's bytes) for the `coverage` entry point, natively in podmut-core.
#![no_main]

use libfuzzer_sys::fuzz_target;
use podmut_fuzzgen::{Target, generate_from_bytes, run_native};

fuzz_target!(|data: &[u8]| {
    run_native(&generate_from_bytes(Target::Coverage, data));
});
