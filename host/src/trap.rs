//! A guest trap, described with the guest's function names although the shipped component has no
//! function names: the release pipeline splits them off its core module into a names file
//! (`podmut_splice`, `podmut.wasm.names`), which the host embeds for the embedded component and
//! reads beside a `--policy FILE.wasm` (`FILE.wasm.names`). wasmtime then knows only function
//! indexes (`<wasm function N>`); [`describe`] writes the backtrace as wasmtime does, each such
//! frame named from the file.

use std::borrow::Cow;
use std::fmt::Write as _;

use podmut_splice::GuestNames;
use wasmtime::{FrameInfo, WasmBacktrace};

/// The names file of a loaded component (its text; parsed only when a trap needs it).
#[derive(Debug, Clone, Default)]
pub(crate) struct NamesFile {
    text: Cow<'static, str>,
}

impl NamesFile {
    /// A names file's text (empty: no names).
    pub(crate) fn new(text: impl Into<Cow<'static, str>>) -> Self {
        Self { text: text.into() }
    }

    /// The names, when the file names the component with this hex SHA-256 digest.
    fn for_component(&self, digest: &str) -> Option<GuestNames> {
        if self.text.is_empty() {
            return None;
        }
        let names = GuestNames::parse(&self.text).ok()?;
        let named = names.component.as_deref()?.strip_prefix("sha256:")?;
        (named == digest && !names.is_empty()).then_some(names)
    }
}

/// `err` as `{err:#}` prints it, except that a wasm backtrace names the frames wasmtime knows
/// only by index from the component's names file (when it names the component with `digest`).
pub(crate) fn describe(err: &wasmtime::Error, names: &NamesFile, digest: &str) -> String {
    // wasmtime attaches the backtrace as context (`WasmBacktrace` is no `std::error::Error`, so
    // it is found by downcasting the error, and in the chain by what it displays).
    let Some(backtrace) = err.downcast_ref::<WasmBacktrace>() else {
        return format!("{err:#}");
    };
    let Some(names) = names.for_component(digest) else {
        return format!("{err:#}");
    };
    let plain = backtrace.to_string();
    let parts: Vec<String> = err
        .chain()
        .map(|cause| {
            let text = cause.to_string();
            if text == plain {
                symbolized(backtrace, &names)
            } else {
                text
            }
        })
        .collect();
    parts.join(": ")
}

/// wasmtime's backtrace layout (`impl Display for WasmBacktrace`), one line per frame.
fn symbolized(backtrace: &WasmBacktrace, names: &GuestNames) -> String {
    let mut out = String::from("error while executing at wasm backtrace:");
    for (i, frame) in backtrace.frames().iter().enumerate() {
        let module = frame.module().name().unwrap_or("<unknown>");
        let _ = write!(out, "\n  {i:>3}: ");
        if let Some(offset) = frame.module_offset() {
            let _ = write!(out, "{offset:#8x} - ");
        }
        let _ = write!(out, "{module}!{}", function_name(frame, names));
    }
    out
}

/// The frame's function: wasmtime's name for it, else the names file's (for the module the file
/// was split from), else its index as wasmtime writes it.
fn function_name<'a>(frame: &'a FrameInfo, names: &'a GuestNames) -> Cow<'a, str> {
    if let Some(name) = frame.func_name() {
        return Cow::Borrowed(name);
    }
    let same_module = names.module.is_none() || names.module.as_deref() == frame.module().name();
    match names.function(frame.func_index()) {
        Some(name) if same_module => Cow::Borrowed(name),
        _ => Cow::Owned(format!("<wasm function {}>", frame.func_index())),
    }
}
