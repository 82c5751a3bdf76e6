//! A loop over one podmut call, for profilers (`perf record`, `valgrind --tool=callgrind`) and
//! for wall-clock best-of timings of native podmut-core, with the allocator the shipped binary uses.
//!
//! ```sh
//! node web/bench/fixture.mjs 5 > review5.json
//! cargo build --release -p podmut-core --example profile --example profile-system
//! target/release/examples/profile review review5.json 2000        # best-of batches, µs per call
//! valgrind --tool=callgrind target/release/examples/profile review review5.json 20
//! target/release/examples/profile-system review review5.json 2000 # the same with the platform's malloc
//! ```
//!
//! Modes: see `harness.rs`.
//!
//! The shipped native binary (the static musl `podmut`) allocates with mimalloc (host/src/main.rs),
//! so the native review is measured with that allocator too: glibc's malloc adds ~24 % of
//! instructions to a review (BENCHMARKS.md, "Per-call cost"), musl's much more.
//! `profile-system` is the same harness on the platform's allocator.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod harness;

fn main() {
    harness::run();
}
