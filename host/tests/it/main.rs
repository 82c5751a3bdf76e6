//! The host's integration tests, as one test binary (one link of wasmtime, axum and rustls
//! instead of one per file). One module per area; what they share is in [`support`].
//!
//! `cargo test -p podmut --test it` runs them all; `cargo test -p podmut --test it -- webhook::`
//! runs one area. New host tests go into the module of their area (or a new one listed here).
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code: failing loudly is the point"
)]

mod support;

mod cli;
mod component;
mod deploy;
mod dist;
mod inputs;
mod node_cli;
mod rules;
mod serve;
mod traps;
mod vap;
mod version;
mod webhook;
mod worlds;
