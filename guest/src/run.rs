//! The `wasi:cli/run` export: `wasmtime run -S http podmut.wasm < review.json`.
//!
//! Reads one AdmissionReview (JSON or YAML) from stdin and writes the AdmissionReview response
//! (JSON, one line) to stdout. The exit code is 0 whatever the verdict — the verdict is in the
//! response, as it is for the webhook; a review that cannot be judged (unreadable, not an
//! AdmissionReview, too large, bad settings) prints `podmut: <input>: <problem>` on stderr and exits 1.

use std::io::{Read as _, Write as _};

/// Run once over stdin/stdout.
pub(crate) fn run() -> Result<(), ()> {
    let settings = crate::settings_text();
    let limit = crate::input_limit(&settings);
    let mut input = Vec::new();
    // Read one byte past the limit to tell "exactly at the limit" from "over it".
    let read = std::io::stdin()
        .take(limit.saturating_add(1))
        .read_to_end(&mut input);
    if let Err(e) = read {
        return fail(&format!("admission-review: cannot read stdin: {e}"));
    }
    if u64::try_from(input.len()).unwrap_or(u64::MAX) > limit {
        return fail(&format!(
            "admission-review: stdin is larger than the {limit}-byte limit"
        ));
    }
    let Ok(text) = String::from_utf8(input) else {
        return fail("admission-review: stdin is not UTF-8 text");
    };
    match podmut_core::review(&text, &settings) {
        Ok(response) => {
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{response}").and_then(|()| out.flush()).is_err() {
                return Err(());
            }
            Ok(())
        }
        Err(e) => fail(&e.to_string()),
    }
}

fn fail(message: &str) -> Result<(), ()> {
    let _ = writeln!(std::io::stderr(), "podmut: {message}");
    Err(())
}
