//! The host's integration tests, as one test binary (one link of wasmtime, axum and rustls
//! instead of one per file). One module per area; what they share is in [`support`].
//!
//! `cargo test -p podmut --test it` runs them all; `cargo test -p podmut --test it -- webhook::`
//! runs one area. New host tests go into the module of their area (or a new one listed here).
//!
//! A test that needs something cargo does not build — a program on PATH (the wasmtime CLI, curl,
//! docker-registry, skopeo) or a `cargo xtask dist` output — is `#[ignore = "needs ..."]`: a plain
//! `cargo test` reports it as ignored with that reason, never as passed. `cargo test -p podmut
//! --test it -- --ignored` runs them, and `cargo xtask ci` does, after providing all of it; a test
//! run that way fails when its prerequisite is missing (`support::required_tool`).
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
mod suites;
mod traps;
mod vap;
mod version;
mod webhook;
mod workloads;
mod worlds;
mod yaml;
