//! The answer to one Pod change: allowed or not, the errors, the warnings and the message.

use podmut_model::field::{ErrorList, invalid_message};

/// The outcome of validating one Pod change.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
    /// True when there are no errors.
    pub allowed: bool,
    /// Every error, in upstream order.
    pub errors: ErrorList,
    /// Non-fatal findings.
    pub warnings: Vec<String>,
    /// The API server's message for a denial (`Pod "x" is invalid: ...`); empty when allowed.
    pub message: String,
}

impl Verdict {
    /// A refusal before validation (a bad request, a conflict, an admission plugin's `Forbidden`):
    /// the server's message, no causes.
    pub(crate) fn refused(message: String) -> Self {
        Self {
            allowed: false,
            errors: ErrorList::new(),
            warnings: Vec::new(),
            message,
        }
    }

    /// A verdict on the Pod named `name` from an error list (allowed iff empty).
    pub fn from_errors(name: &str, errors: ErrorList, warnings: Vec<String>) -> Self {
        let message = if errors.is_empty() {
            String::new()
        } else {
            invalid_message("Pod", name, &errors)
        };
        Self {
            allowed: errors.is_empty(),
            errors,
            warnings,
            message,
        }
    }
}
