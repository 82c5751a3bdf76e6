//! `cargo +nightly fuzz run parsers`: raw bytes for every document parser (the first byte picks
//! the entry point, the rest is the document text).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    podmut_fuzzgen::run_raw(data);
});
