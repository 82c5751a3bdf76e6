//! Host errors: what can go wrong running the component (as opposed to verdicts, which are data).

use std::path::PathBuf;
use std::time::Duration;

use crate::bindings::podmut::policy::types::InputError;

/// A failure of the host or of the guest as a program (never a validation result).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// The component file could not be read.
    #[error("cannot read component {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The wasmtime engine could not be configured.
    #[error("cannot configure wasmtime: {0:#}")]
    Engine(#[source] wasmtime::Error),
    /// The bytes are not a valid component.
    #[error("cannot compile the component: {0:#}")]
    Compile(#[source] wasmtime::Error),
    /// The component does not fit podmut's WIT contract or asks for imports podmut does not grant.
    #[error("the component does not fit podmut's contract: {0:#}")]
    Link(#[source] wasmtime::Error),
    /// The guest trapped (a panic or a bug).
    #[error("the component trapped: {message}{}", if stderr.is_empty() { String::new() } else { format!(" (guest stderr: {stderr})") })]
    Trap {
        /// wasmtime's description of the trap.
        message: String,
        /// What the guest wrote to stderr before trapping (e.g. a Rust panic message).
        stderr: String,
    },
    /// The guest ran past its deadline.
    #[error("the component ran out of time (deadline {0:?})")]
    Timeout(Duration),
    /// The guest tried to grow its memory past the cap.
    #[error("the component ran out of memory (limit {limit} bytes)")]
    OutOfMemory {
        /// The cap, in bytes.
        limit: usize,
    },
}

/// The result of one component call that did not produce an answer.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The guest judged the input unreadable (malformed, wrong kind, too large, bad settings, ...).
    #[error("{}", describe_input_error(.0))]
    Input(InputError),
    /// The host or the guest failed as a program.
    #[error(transparent)]
    Host(#[from] HostError),
}

/// `input: message` for a guest input error.
pub fn describe_input_error(e: &InputError) -> String {
    match e {
        InputError::Malformed(p)
        | InputError::WrongKind(p)
        | InputError::TooLarge(p)
        | InputError::BadSettings(p) => {
            format!("{}: {}", p.input, p.message)
        }
        InputError::NotImplemented(what) => format!("not implemented in this component: {what}"),
    }
}

/// The argument an input error blames (`old-pod`, `new-pod`, `settings`, ...), if any.
pub fn blamed_input(e: &InputError) -> Option<&str> {
    match e {
        InputError::Malformed(p)
        | InputError::WrongKind(p)
        | InputError::TooLarge(p)
        | InputError::BadSettings(p) => Some(&p.input),
        InputError::NotImplemented(_) => None,
    }
}
