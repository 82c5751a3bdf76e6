//! The two byte-level edits the release pipeline makes to the podmut component after cargo built it
//! (`xtask/src/optimise.rs`; host/build.rs and tests/misbehave/build.rs for builds outside it):
//!
//! 1. [`core_module`] / [`replace_core_module`]: take the component's code — its largest top-level
//!    core module (the other two are wit-component's few-hundred-byte shims) — out, so that
//!    binaryen's `wasm-opt`, which reads core modules only, can optimise it, and put the result
//!    back, every other section of the component byte for byte as it was;
//! 2. [`split_names`]: drop a core module's `name` section (≈ 20% of the component's bytes),
//!    keeping only the module's own name, and return its function names as [`GuestNames`]: a text
//!    file shipped beside the component (`podmut.wasm.names`) and embedded in the host, which names
//!    the guest's functions in trap backtraces from it (wasmtime prints `<wasm function N>` for a
//!    frame whose module has no function names).
//!
//! Sections are copied as raw bytes (wasmparser finds them, wasm-encoder writes them): no module is
//! decoded and re-encoded, so nothing but the edited section can change.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::ops::Range;

use sha2::Digest as _;
use wasm_encoder::{Encode as _, NameSection};
use wasmparser::{Encoding, KnownCustom, Name, Parser, Payload};

/// What went wrong reading a component, a module or a names file.
#[derive(Debug, thiserror::Error)]
pub enum SpliceError {
    /// The bytes are not a WebAssembly binary of the expected kind.
    #[error("not a WebAssembly {expected}: {source}")]
    Parse {
        /// "component" or "core module".
        expected: &'static str,
        /// The parser's error.
        #[source]
        source: wasmparser::BinaryReaderError,
    },
    /// A module where a component was expected, or the other way round.
    #[error("expected a WebAssembly {expected}, found a {found}")]
    WrongKind {
        /// "component" or "core module".
        expected: &'static str,
        /// What the bytes are.
        found: &'static str,
    },
    /// The component has no top-level core module.
    #[error("the component holds no core module")]
    NoCoreModule,
    /// Reading or writing a file, or running wasm-opt, failed.
    #[error("{what}: {source}")]
    Io {
        /// The file or command.
        what: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// wasm-opt exited with an error.
    #[error("`{command}` failed ({status})")]
    WasmOpt {
        /// The command line.
        command: String,
        /// Its exit status.
        status: std::process::ExitStatus,
    },
    /// A names file given for a component names another one.
    #[error("the names file is for the component {names:?}, not this one ({component})")]
    OtherComponent {
        /// The digest the names file gives.
        names: Option<String>,
        /// The component's digest.
        component: String,
    },
    /// A names file line that is not `INDEX<TAB>NAME`, a header or a comment.
    #[error("line {line} of the names file: {problem}")]
    Names {
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        problem: String,
    },
}

/// One top-level section: its id and where its contents are (after the id and the size).
#[derive(Debug, Clone)]
struct RawSection {
    id: u8,
    contents: Range<usize>,
}

const COMPONENT: &str = "component";
const MODULE: &str = "core module";
/// `ComponentSectionId::CoreModule`.
const CORE_MODULE_SECTION: u8 = 1;
/// The header: magic and version (layer) bytes.
const HEADER: usize = 8;

/// The top-level sections of `bytes`, which must be a component (`expected` = [`COMPONENT`]) or a
/// core module. Nested modules and components are skipped over, not entered.
fn sections(bytes: &[u8], expected: &'static str) -> Result<Vec<RawSection>, SpliceError> {
    let parse = |source| SpliceError::Parse { expected, source };
    let mut out = Vec::new();
    let mut depth = 0usize;
    for payload in Parser::new(0).parse_all(bytes) {
        let payload = payload.map_err(parse)?;
        match &payload {
            Payload::Version { encoding, .. } if depth == 0 => {
                let found = match encoding {
                    Encoding::Component => COMPONENT,
                    Encoding::Module => MODULE,
                };
                if found != expected {
                    return Err(SpliceError::WrongKind { expected, found });
                }
            }
            Payload::End(_) if depth > 0 => depth -= 1,
            _ if depth == 0 => {
                if let Some((id, contents)) = payload.as_section() {
                    out.push(RawSection { id, contents });
                }
                if matches!(
                    payload,
                    Payload::ModuleSection { .. } | Payload::ComponentSection { .. }
                ) {
                    depth += 1;
                }
            }
            Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => depth += 1,
            _ => {}
        }
    }
    Ok(out)
}

/// The largest top-level core module section of a component.
fn largest_module(sections: &[RawSection]) -> Result<&RawSection, SpliceError> {
    sections
        .iter()
        .filter(|s| s.id == CORE_MODULE_SECTION)
        .max_by_key(|s| s.contents.len())
        .ok_or(SpliceError::NoCoreModule)
}

/// `bytes`' header, then each section as it was except those `replace` returns bytes for.
fn rewrite(
    bytes: &[u8],
    sections: &[RawSection],
    mut replace: impl FnMut(usize, &RawSection) -> Option<Vec<u8>>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(&bytes[..HEADER]);
    for (i, s) in sections.iter().enumerate() {
        out.push(s.id);
        match replace(i, s) {
            Some(contents) => contents.encode(&mut out),
            None => bytes[s.contents.clone()].encode(&mut out),
        }
    }
    out
}

/// Where each top-level core module's bytes are in `component` (jco writes each as its own file:
/// a host serving them can serve these ranges of the component instead of a second copy).
///
/// # Errors
/// When `component` is not a component.
pub fn core_modules(component: &[u8]) -> Result<Vec<Range<usize>>, SpliceError> {
    Ok(sections(component, COMPONENT)?
        .into_iter()
        .filter(|s| s.id == CORE_MODULE_SECTION)
        .map(|s| s.contents)
        .collect())
}

/// The component's code: its largest top-level core module.
///
/// # Errors
/// When `component` is not a component or holds no core module.
pub fn core_module(component: &[u8]) -> Result<&[u8], SpliceError> {
    let sections = sections(component, COMPONENT)?;
    Ok(&component[largest_module(&sections)?.contents.clone()])
}

/// `component` with its largest top-level core module replaced by `module`; every other section is
/// copied byte for byte.
///
/// # Errors
/// When `component` is not a component or holds no core module, or `module` is not a core module.
pub fn replace_core_module(component: &[u8], module: &[u8]) -> Result<Vec<u8>, SpliceError> {
    sections(module, MODULE)?;
    let sections = sections(component, COMPONENT)?;
    let target = largest_module(&sections)?.contents.start;
    Ok(rewrite(component, &sections, |_, s| {
        (s.contents.start == target).then(|| module.to_vec())
    }))
}

/// A core module's function names, split off its `name` section (see [`split_names`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GuestNames {
    /// The module's own name (the `name` section's module subsection), which stays in the module.
    pub module: Option<String>,
    /// `sha256:<hex>` of the component these names belong to, when known.
    pub component: Option<String>,
    /// Function index → demangled name.
    pub functions: BTreeMap<u32, String>,
}

impl GuestNames {
    /// The name of function `index`, if the file names it.
    pub fn function(&self, index: u32) -> Option<&str> {
        self.functions.get(&index).map(String::as_str)
    }

    /// No function is named.
    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }

    /// The names file: comment lines (`#`), `component sha256:<hex>`, `module <name>`, then one
    /// `INDEX<TAB>NAME` line per function.
    pub fn to_text(&self) -> String {
        let mut text = String::from(
            "# podmut: the function names split off the component's core module (`podmut.wasm.names`).\n\
             # A wasm backtrace frame `MODULE!<wasm function N>` is the function on the line starting `N<TAB>`.\n",
        );
        if let Some(digest) = &self.component {
            let _ = writeln!(text, "component {digest}");
        }
        if let Some(module) = &self.module {
            let _ = writeln!(text, "module {module}");
        }
        for (index, name) in &self.functions {
            let _ = writeln!(text, "{index}\t{name}");
        }
        text
    }

    /// Read a names file written by [`GuestNames::to_text`].
    ///
    /// # Errors
    /// On a line that is none of a comment, a header or `INDEX<TAB>NAME`.
    pub fn parse(text: &str) -> Result<Self, SpliceError> {
        let mut names = Self::default();
        for (i, line) in text.lines().enumerate() {
            let problem = |problem: &str| SpliceError::Names {
                line: i + 1,
                problem: problem.to_owned(),
            };
            if line.is_empty() || line.starts_with('#') {
            } else if let Some(digest) = line.strip_prefix("component ") {
                names.component = Some(digest.to_owned());
            } else if let Some(module) = line.strip_prefix("module ") {
                names.module = Some(module.to_owned());
            } else {
                let (index, name) = line
                    .split_once('\t')
                    .ok_or_else(|| problem("expected INDEX<TAB>NAME"))?;
                let index = index
                    .parse()
                    .map_err(|_| problem("the function index is not a number"))?;
                names.functions.insert(index, name.to_owned());
            }
        }
        Ok(names)
    }
}

/// `sha256:<hex>` of `bytes`: how a names file names its component.
pub fn digest(bytes: &[u8]) -> String {
    let hex: String = sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

/// Split the function names off a core module: the module without its `name` section (a new one
/// keeps only the module's own name, so backtraces still say which module a frame is in), and the
/// names. A module without a `name` section comes back unchanged, with no names.
///
/// # Errors
/// When `module` is not a core module or its `name` section is malformed.
pub fn split_names(module: &[u8]) -> Result<(Vec<u8>, GuestNames), SpliceError> {
    let parse = |source| SpliceError::Parse {
        expected: MODULE,
        source,
    };
    let sections = sections(module, MODULE)?;
    let mut names = GuestNames::default();
    let mut name_section = None;
    for (i, s) in sections.iter().enumerate() {
        if s.id != 0 {
            continue;
        }
        let reader = wasmparser::CustomSectionReader::new(wasmparser::BinaryReader::new(
            &module[s.contents.clone()],
            s.contents.start,
        ))
        .map_err(parse)?;
        let KnownCustom::Name(subsections) = reader.as_known() else {
            continue;
        };
        for subsection in subsections {
            match subsection.map_err(parse)? {
                Name::Module { name, .. } => names.module = Some(name.to_owned()),
                Name::Function(map) => {
                    for naming in map {
                        let naming = naming.map_err(parse)?;
                        let name = format!("{:#}", rustc_demangle::demangle(naming.name));
                        names.functions.insert(naming.index, name);
                    }
                }
                _ => {}
            }
        }
        name_section = Some(i);
    }
    let Some(name_section) = name_section else {
        return Ok((module.to_vec(), names));
    };
    let stripped = rewrite(module, &sections, |i, _| {
        (i == name_section).then(|| {
            let mut kept = NameSection::new();
            if let Some(module_name) = &names.module {
                kept.module(module_name);
            }
            // A custom section's contents: its name, then its data.
            let custom = kept.as_custom();
            let mut contents = Vec::new();
            custom.name.encode(&mut contents);
            contents.extend_from_slice(&custom.data);
            contents
        })
    });
    Ok((stripped, names))
}

/// [`split_names`] on the component's largest core module, spliced back; the names carry the
/// digest of the returned component.
///
/// # Errors
/// As [`core_module`] and [`split_names`].
pub fn split_component_names(component: &[u8]) -> Result<(Vec<u8>, GuestNames), SpliceError> {
    let (module, mut names) = split_names(core_module(component)?)?;
    let spliced = replace_core_module(component, &module)?;
    names.component = Some(digest(&spliced));
    Ok((spliced, names))
}

/// A prebuilt component made ready to embed: [`split_component_names`], or, when it has no
/// function names left (already split), the names file `names` (its text), which must name it.
///
/// # Errors
/// As [`split_component_names`]; a names file that does not parse or names another component.
pub fn prebuilt(component: &[u8], names: Option<&str>) -> Result<(Vec<u8>, GuestNames), SpliceError> {
    let (component, split) = split_component_names(component)?;
    let Some(text) = names.filter(|_| split.is_empty()) else {
        return Ok((component, split));
    };
    let given = GuestNames::parse(text)?;
    if given.component != split.component {
        return Err(SpliceError::OtherComponent {
            names: given.component,
            component: digest(&component),
        });
    }
    Ok((component, given))
}

mod optimise;
pub use optimise::{Optimised, WASM_OPT_FLAGS, optimise_file, wasm_opt};

#[cfg(test)]
mod tests;
