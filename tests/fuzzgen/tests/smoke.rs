//! The native fuzz smoke of `cargo xtask test`: the structure-aware generators (the same code the
//! cargo-fuzz targets in `fuzz/` run) driven by a fixed-seed PRNG over the seed corpus in
//! `fuzz/corpus/`, a bounded number of inputs per entry point; every input must return (an answer
//! or an input error) from podmut-core without panicking. `tests/tests/fuzz_smoke.rs` sends a
//! sample of the same inputs through the component.
#![expect(clippy::panic, reason = "a test: failing loudly is the point")]

use std::panic::{AssertUnwindSafe, catch_unwind};

use podmut_fuzzgen::{
    Seed, Target, XorShift, describe, generate_from_bytes, run_native, run_raw, split_input,
};

/// Generated inputs per entry point, natively.
const NATIVE_PER_TARGET: usize = 300;

fn corpus(name: &str) -> Vec<Vec<u8>> {
    podmut_fuzzgen::corpus(name).unwrap_or_else(|e| panic!("{e}"))
}

fn inputs(target: Target, rng: &mut XorShift) -> Vec<Vec<u8>> {
    podmut_fuzzgen::smoke_inputs(target, rng, NATIVE_PER_TARGET).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn corpus_seeds_parse() {
    for target in Target::ALL {
        for seed in corpus(target.name()) {
            let (parsed, _) = split_input(&seed);
            let parsed: Seed =
                parsed.unwrap_or_else(|| panic!("{}: a seed that does not parse", target.name()));
            assert!(
                !parsed.docs.is_empty(),
                "{}: a seed without documents",
                target.name()
            );
        }
    }
}

#[test]
fn generated_inputs_never_panic_natively() {
    let mut rng = XorShift::new(0x0070_6f64_6d75_7400);
    let mut failures = Vec::new();
    let mut mutated = 0;
    for target in Target::ALL {
        for input in inputs(target, &mut rng) {
            let g = generate_from_bytes(target, &input);
            let seed_len = input.iter().position(|b| *b == 0).map_or(0, |at| at + 1);
            let unmutated = generate_from_bytes(target, input.get(..seed_len).unwrap_or_default());
            if g.docs != unmutated.docs || g.settings != unmutated.settings {
                mutated += 1;
            }
            if catch_unwind(AssertUnwindSafe(|| run_native(&g))).is_err() {
                failures.push(describe(&g));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} panics; first:\n{}",
        failures.len(),
        failures[0]
    );
    assert!(
        mutated > Target::ALL.len() * NATIVE_PER_TARGET / 2,
        "only {mutated} inputs differ from their seed: the generator hardly mutates"
    );
}

#[test]
fn raw_parser_inputs_never_panic() {
    let mut rng = XorShift::new(7);
    let mut failures = Vec::new();
    for seed in corpus("parsers") {
        // The seed, then copies with a few bytes flipped, truncated, or with another selector.
        let mut variants = vec![seed.clone()];
        for _ in 0..8 {
            let mut v = seed.clone();
            let n = v.len().max(1);
            for _ in 0..4 {
                let at = usize::try_from(rng.next_u64()).unwrap_or(0) % n;
                if let Some(b) = v.get_mut(at) {
                    *b = rng.bytes(1).first().copied().unwrap_or(0);
                }
            }
            v.truncate(usize::try_from(rng.next_u64()).unwrap_or(0) % (n + 1));
            variants.push(v);
        }
        for sel in 0..10u8 {
            let mut v = seed.clone();
            if let Some(b) = v.first_mut() {
                *b = sel;
            }
            variants.push(v);
        }
        for v in variants {
            if catch_unwind(AssertUnwindSafe(|| run_raw(&v))).is_err() {
                failures.push(String::from_utf8_lossy(&v).into_owned());
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} panics; first:\n{}",
        failures.len(),
        failures[0]
    );
}
