//! The component half of the fuzz smoke (`cargo xtask test`): a sample of the inputs the native
//! smoke (`tests/fuzzgen/tests/smoke.rs`) generates goes through the podmut component **and**
//! through podmut-core, and the two must give the same whole answer — a differential check, not
//! only "no crash": no call may trap, time out or run out of memory (a component failure never
//! equals a native answer), and an input error must be the same error (kind, input, message).
#![expect(
    clippy::panic,
    reason = "a test: unreadable corpus or an unnamable subresource fails it loudly"
)]

use podmut_conformance::{allocate, check, coverage, probes, qos, review, statuses};
use podmut_fuzzgen::{Generated, Target, XorShift, describe, generate_from_bytes};
use serde_json::Value;

/// Generated inputs per entry point (as the native smoke generates them).
const NATIVE_PER_TARGET: usize = 300;
/// Of those, how many go through both the component and podmut-core.
const COMPARED_PER_TARGET: usize = 100;

fn inputs(target: Target, rng: &mut XorShift) -> Vec<Vec<u8>> {
    podmut_fuzzgen::smoke_inputs(target, rng, NATIVE_PER_TARGET).unwrap_or_else(|e| panic!("{e}"))
}

/// The native and the component answer to one generated call, as JSON of one shape (the
/// conformance runner's answers). `allocate` inputs are sent to both node functions that read
/// that document: `allocate` and `retry-order`.
fn answers(g: &Generated) -> Vec<(&'static str, Value, Value)> {
    let doc = |i: usize| g.docs.get(i).map(String::as_str).unwrap_or_default();
    match g.target {
        Target::Check => {
            let (old, new) = if g.docs.len() < 2 {
                (None, doc(0))
            } else {
                (Some(doc(0)), doc(1))
            };
            let sub = podmut::output::parse_subresource(g.sub.as_str())
                .unwrap_or_else(|e| panic!("a generated subresource the host cannot name: {e}"));
            vec![(
                "check",
                check::native_answer(old, new, g.sub, &g.settings),
                check::wasm_answer(old, new, sub, &g.settings),
            )]
        }
        Target::Qos => vec![(
            "qos",
            qos::native_answer(doc(0), g.apply_defaults, g.always_compute),
            qos::wasm_answer(doc(0), g.apply_defaults, g.always_compute),
        )],
        Target::Allocate => vec![
            (
                "allocate",
                allocate::native_allocate(doc(0)),
                allocate::wasm_allocate(doc(0)),
            ),
            (
                "retry-order",
                allocate::native_retry(doc(0)),
                allocate::wasm_retry(doc(0)),
            ),
        ],
        Target::Probes => vec![(
            "probe-plan",
            probes::native_answer(doc(0), doc(1), &g.settings),
            probes::wasm_answer(doc(0), doc(1), &g.settings),
        )],
        Target::Statuses => vec![(
            "container-statuses",
            statuses::native_answer(doc(0)),
            statuses::wasm_answer(doc(0)),
        )],
        Target::Review => vec![(
            "review",
            review::native_answer(doc(0), &g.settings),
            review::wasm_answer(doc(0), &g.settings),
        )],
        Target::Coverage => vec![(
            "coverage",
            coverage::native_answer(doc(0), &g.scope),
            coverage::wasm_answer(doc(0), &g.scope),
        )],
    }
}

#[test]
fn generated_inputs_get_the_same_answer_natively_and_through_the_component() {
    let mut rng = XorShift::new(0x5eed);
    let (mut compared, mut answered) = (0, 0);
    let mut disagreements = Vec::new();
    for target in Target::ALL {
        for input in inputs(target, &mut rng).into_iter().take(COMPARED_PER_TARGET) {
            let g = generate_from_bytes(target, &input);
            for (function, native, wasm) in answers(&g) {
                compared += 1;
                if native.get("inputError").is_none() {
                    answered += 1;
                }
                if native != wasm {
                    disagreements.push(format!(
                        "{function}: native {native}\n  wasm   {wasm}\non:\n{}",
                        describe(&g)
                    ));
                }
            }
        }
    }
    eprintln!("{compared} calls compared, {answered} answered (the rest input errors)");
    assert!(
        disagreements.is_empty(),
        "{} of {compared} calls disagree; first:\n{}",
        disagreements.len(),
        disagreements[0]
    );
    // Both sides of every function (8 functions: allocate inputs feed two).
    assert_eq!(compared, (Target::ALL.len() + 1) * COMPARED_PER_TARGET);
    // Mutated inputs are still mostly answers, not input errors: the comparison reaches the rules.
    assert!(
        answered * 2 > compared,
        "only {answered} of {compared} calls were answered (the rest input errors)"
    );
}
