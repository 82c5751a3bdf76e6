//! The loop both `profile` examples run (one harness, so the two differ only in the allocator).
//!
//! Modes: `review FILE N` (`admission.review` on an AdmissionReview), `check OLD NEW N`
//! (`validate.check` on two Pod documents), `read-and-check OLD NEW N` (`podmut check`'s one guest
//! call: both inputs read under strict field validation, then judged).
#![expect(
    clippy::expect_used,
    clippy::panic,
    reason = "a profiling harness: failing loudly is fine"
)]

use std::hint::black_box;
use std::time::Instant;

/// Runs the mode the arguments name and prints the best batch.
pub(crate) fn run() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{p}: {e}"));
    let (call, n): (Box<dyn Fn()>, usize) = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["review", file, n] => {
            let text = read(file);
            let out = podmut_core::review(&text, "").expect("review");
            assert!(out.contains(r#""allowed":true"#), "{out}");
            (
                Box::new(move || {
                    black_box(podmut_core::review(black_box(&text), "").expect("review"));
                }),
                n.parse().expect("N"),
            )
        }
        ["check", old, new, n] => {
            let (old, new) = (read(old), read(new));
            (
                Box::new(move || {
                    black_box(
                        podmut_core::check_documents(Some(&old), &new, podmut_core::Subresource::None, "")
                            .expect("check"),
                    );
                }),
                n.parse().expect("N"),
            )
        }
        ["read-and-check", old, new, n] => {
            let (old, new) = (read(old), read(new));
            (
                Box::new(move || {
                    black_box(
                        podmut_core::read_and_check(
                            Some(&old),
                            &new,
                            podmut_core::FieldValidation::Strict,
                            podmut_core::Subresource::None,
                            "",
                            podmut_core::Settings::default().max_input_bytes,
                        )
                        .expect("read-and-check"),
                    );
                }),
                n.parse().expect("N"),
            )
        }
        _ => panic!("usage: profile review FILE N | profile check|read-and-check OLD NEW N"),
    };
    // Best of 5 batches of n calls: the least-disturbed batch on a shared machine.
    let best = (0..5)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..n {
                call();
            }
            t.elapsed().as_secs_f64() / n as f64
        })
        .fold(f64::INFINITY, f64::min);
    println!("{:.1} µs per call (best of 5 batches of {n})", best * 1e6);
}
