//! `cargo +nightly fuzz run check`: structure-aware inputs (a seed from fuzz/corpus/check/, a NUL, then
//! the mutation plan's bytes) for the `check` entry point, natively in podmut-core.
#![no_main]

use libfuzzer_sys::fuzz_target;
use podmut_fuzzgen::{Target, generate_from_bytes, run_native};

fuzz_target!(|data: &[u8]| {
    run_native(&generate_from_bytes(Target::Check, data));
});
