//! The component half of the fuzz smoke (`cargo xtask test`): a sample of the inputs the native
//! smoke (`tests/fuzzgen/tests/smoke.rs`) generates goes through the podmut component, where no
//! call may trap, time out or run out of memory (input errors and denials are answers).
#![expect(clippy::panic, reason = "a test: failing loudly is the point")]

use podmut_fuzzgen::{Target, XorShift, describe, generate_from_bytes};

/// Generated inputs per entry point.
const NATIVE_PER_TARGET: usize = 300;
/// Of those, how many go through the component.
const WASM_PER_TARGET: usize = 6;

fn inputs(target: Target, rng: &mut XorShift) -> Vec<Vec<u8>> {
    podmut_fuzzgen::smoke_inputs(target, rng, NATIVE_PER_TARGET).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn generated_inputs_never_trap_in_the_component() {
    use podmut::{CallError, types};
    let rt = podmut_conformance::runtime();
    let mut rng = XorShift::new(0x5eed);
    let mut calls = 0;
    for target in Target::ALL {
        for input in inputs(target, &mut rng).into_iter().take(WASM_PER_TARGET) {
            let g = generate_from_bytes(target, &input);
            let doc = |i: usize| g.docs.get(i).map(String::as_str).unwrap_or_default();
            let sub = podmut::output::parse_subresource(g.sub.as_str()).unwrap_or(types::Subresource::None);
            let result: Result<(), CallError> = match target {
                Target::Check => {
                    let (old, new) = if g.docs.len() < 2 {
                        (None, doc(0))
                    } else {
                        (Some(doc(0)), doc(1))
                    };
                    rt.check(old, new, sub, &g.settings).map(drop)
                }
                Target::Qos => rt
                    .qos(
                        doc(0),
                        types::QosOptions {
                            apply_defaults: g.apply_defaults,
                            always_compute: g.always_compute,
                        },
                    )
                    .map(drop),
                Target::Allocate => rt.allocate(doc(0)).map(drop),
                Target::Probes => rt.probe_plan(doc(0), doc(1), &g.settings).map(drop),
                Target::Statuses => rt.container_statuses(doc(0)).map(drop),
                Target::Review => rt.review(doc(0), &g.settings).map(drop),
                Target::Coverage => rt.coverage(doc(0)).map(drop),
            };
            if let Err(CallError::Host(e)) = result {
                panic!("the component failed as a program ({e}) on:\n{}", describe(&g));
            }
            calls += 1;
        }
    }
    assert_eq!(calls, Target::ALL.len() * WASM_PER_TARGET);
}
