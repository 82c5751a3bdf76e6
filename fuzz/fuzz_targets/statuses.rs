//! `cargo +nightly fuzz run statuses`: structure-aware inputs (a seed from fuzz/corpus/statuses/, a NUL, then
//! the mutation plan's bytes) for the `statuses` entry point, natively in podmut-core.
#![no_main]

use libfuzzer_sys::fuzz_target;
use podmut_fuzzgen::{Target, generate_from_bytes, run_native};

fuzz_target!(|data: &[u8]| {
    run_native(&generate_from_bytes(Target::Statuses, data));
});
