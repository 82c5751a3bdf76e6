//! `cargo +nightly fuzz run probes`: structure-aware inputs (a seed from fuzz/corpus/probes/, a NUL, then
//! the mutation plan's bytes) for the `probes` entry point, natively in podmut-core.
#![no_main]

use libfuzzer_sys::fuzz_target;
use podmut_fuzzgen::{Target, generate_from_bytes, run_native};

fuzz_target!(|data: &[u8]| {
    run_native(&generate_from_bytes(Target::Probes, data));
});
