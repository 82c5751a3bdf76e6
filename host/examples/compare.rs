//! Side-by-side timing of `admission.review` natively and through one or more component files,
//! interleaved round by round so that a shared machine's noise falls on every variant alike.
//!
//! ```sh
//! node web/bench/fixture.mjs 5 > review5.json
//! cargo build --release -p podmut --example compare
//! target/release/examples/compare review5.json 200 5 before.wasm after.wasm
//! ```
//!
//! Arguments: the review file, calls per batch, rounds, then the component files. Each round times
//! one batch natively (podmut-core), then per component one batch with a fresh instance per call
//! (pooling allocator, as the webhook), one of instances made and dropped without a call, and one
//! with a single reused instance; the best batch of each is printed, in µs per call, with its
//! ratio to native. Times are the calling thread's CPU time (`/proc/thread-self/schedstat`, which
//! includes the kernel's work for it, such as page faults), not wall time, so that waiting for a
//! core on a shared machine does not count. `COMPARE_ONLY=fresh` (or `reused`, `instantiate`)
//! times that path alone, for `perf`.
#![expect(
    clippy::expect_used,
    clippy::panic,
    reason = "a benchmark harness: failing loudly is fine"
)]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use podmut::{ComponentSource, Runtime, RuntimeOptions};

/// The shipped static binary's allocator (host/src/main.rs), on every build of this example, so the
/// native review and the host's side of each component call run as in the product: on the static
/// build's musl malloc the native side took 1.7–2.2× as long, on glibc's ~24 % more instructions
/// (BENCHMARKS.md, "Per-call cost").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// This thread's CPU time in ns (Linux's `/proc/thread-self/schedstat`), so that time spent
/// waiting for a core on a shared machine is not counted; wall time where it cannot be read.
///
/// The kernel brings a running thread's total up to date only at a scheduler tick or switch, so
/// read as is it lags by up to a tick (4 ms at 250 Hz: a third of a 200-call batch of native
/// reviews); yielding first makes the scheduler account the time run so far.
fn thread_ns(wall: Instant) -> f64 {
    std::thread::yield_now();
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse::<f64>().ok()))
        .unwrap_or_else(|| wall.elapsed().as_secs_f64() * 1e9)
}

fn best_of(best: &mut f64, n: usize, mut call: impl FnMut()) {
    let wall = Instant::now();
    let start = thread_ns(wall);
    for _ in 0..n {
        call();
    }
    *best = best.min((thread_ns(wall) - start) / 1e3 / n as f64);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, n, rounds, wasm @ ..] = &args[..] else {
        panic!("usage: compare REVIEW.json CALLS ROUNDS COMPONENT.wasm...");
    };
    let text = std::fs::read_to_string(file).expect("review file");
    let n: usize = n.parse().expect("CALLS");
    let rounds: usize = rounds.parse().expect("ROUNDS");
    let runtimes: Vec<(String, Runtime)> = wasm
        .iter()
        .map(|w| {
            let options = RuntimeOptions {
                pooling: true,
                ..RuntimeOptions::default()
            };
            let rt =
                Runtime::load(&ComponentSource::File(PathBuf::from(w)), options).expect("load component");
            let out = rt.review(&text, "").expect("review through the component");
            assert!(out.contains(r#""allowed":true"#), "{w}: {out}");
            (w.clone(), rt)
        })
        .collect();
    let native = podmut_core::review(&text, "").expect("native review");
    assert!(native.contains(r#""allowed":true"#), "{native}");
    // For profiling one path alone (`perf record`): COMPARE_ONLY=fresh, reused or instantiate.
    let only = std::env::var("COMPARE_ONLY").unwrap_or_default();
    let all = only.is_empty();
    let mut best_native = f64::INFINITY;
    let mut best = vec![Best::default(); runtimes.len()];
    for _ in 0..rounds {
        if all {
            best_of(&mut best_native, n, || {
                black_box(podmut_core::review(black_box(&text), "").expect("native"));
            });
        }
        for ((_, rt), b) in runtimes.iter().zip(&mut best) {
            if all || only == "fresh" {
                best_of(&mut b.fresh, n, || {
                    black_box(rt.review(black_box(&text), "").expect("fresh"));
                });
            }
            if all || only == "instantiate" {
                best_of(&mut b.instantiate, n, || {
                    black_box(rt.instance().expect("instance"));
                });
            }
            if all || only == "reused" {
                let mut inst = rt.instance().expect("instance");
                best_of(&mut b.reused, n, || {
                    black_box(inst.review(black_box(&text), "").expect("reused"));
                });
            }
        }
    }
    println!("native                 {best_native:9.1} µs");
    for ((name, _), b) in runtimes.iter().zip(&best) {
        println!(
            "{name}: fresh {:9.1} µs ({:.2}× native), reused {:9.1} µs ({:.2}×), \
             instantiate + drop alone {:7.1} µs",
            b.fresh,
            b.fresh / best_native,
            b.reused,
            b.reused / best_native,
            b.instantiate
        );
    }
}

/// The best batch of each way of calling one component, µs per call.
#[derive(Clone)]
struct Best {
    fresh: f64,
    reused: f64,
    instantiate: f64,
}

impl Default for Best {
    fn default() -> Self {
        Self {
            fresh: f64::INFINITY,
            reused: f64::INFINITY,
            instantiate: f64::INFINITY,
        }
    }
}
