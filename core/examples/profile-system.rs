//! The `profile` example's loop on the platform's allocator (glibc's malloc on a `-gnu` build)
//! instead of mimalloc: for comparing the two, and with older figures
//! measured with glibc's malloc.
//!
//! ```sh
//! cargo build --release -p podmut-core --example profile-system
//! valgrind --tool=callgrind target/release/examples/profile-system review review5.json 10
//! ```

#[path = "profile/harness.rs"]
mod harness;

fn main() {
    harness::run();
}
