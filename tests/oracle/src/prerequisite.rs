//! The one rule of the oracle suites (`tests/oracle/tests/*.rs`) for a case that cannot run here
//! (a control plane not built, no podmut binary, no kubectl): it is reported as ignored with the
//! reason, never as passed; and when the suites are required (`PODMUT_REQUIRE_ORACLE=1`, what
//! `cargo xtask oracle test` and `cargo xtask ci` set) it fails with the reason instead.

use libtest_mimic::{Failed, Trial};

/// Whether the suites must run here: `PODMUT_REQUIRE_ORACLE` is set, and not to `0`.
pub fn required() -> bool {
    std::env::var_os("PODMUT_REQUIRE_ORACLE").is_some_and(|v| !v.is_empty() && v != "0")
}

/// What a suite needs, checked once: why it cannot run here, if it cannot.
#[derive(Debug, Clone)]
pub struct Prerequisites {
    missing: Option<String>,
    required: bool,
}

impl Prerequisites {
    /// `missing`: why the suite cannot run here (`None`: it can); whether that fails the cases is
    /// [`required`].
    pub fn new(missing: Option<String>) -> Self {
        Self {
            missing,
            required: required(),
        }
    }

    /// The case `name`, running `test` with `kind` shown beside it (`""`: none); or, when
    /// something is missing, ignored with `cannot run: <why>` shown beside it, or failing with
    /// `<why>` when the suites are required.
    pub fn trial<F>(&self, name: impl Into<String>, kind: &str, test: F) -> Trial
    where
        F: FnOnce() -> Result<(), Failed> + Send + 'static,
    {
        match (&self.missing, self.required) {
            (None, _) => Trial::test(name, test).with_kind(kind),
            (Some(why), false) => Trial::test(name, || Ok(()))
                .with_kind(format!("cannot run: {why}"))
                .with_ignored_flag(true),
            (Some(why), true) => {
                let why = format!("PODMUT_REQUIRE_ORACLE=1 but this case cannot run: {why}");
                Trial::test(name, move || Err(Failed::from(why)))
            }
        }
    }
}
