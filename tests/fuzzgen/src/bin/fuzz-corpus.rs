//! Write the fuzz seed corpus from the conformance fixtures:
//! `cargo run -p podmut-fuzzgen --bin fuzz-corpus [tests/cases] [fuzz/corpus]`.
//!
//! Per target (`fuzz/corpus/<target>/`) up to [`PER_TARGET`] seeds of at most [`MAX_SEED`] bytes,
//! spread over the fixture areas; `fuzz/corpus/parsers/` gets raw documents for the raw-bytes
//! target (first byte = entry point). The directories are replaced.

use std::path::PathBuf;
use std::process::ExitCode;

use podmut_fuzzgen::{Target, seeds_from_cases};

/// Seeds kept per target.
const PER_TARGET: usize = 24;
/// Largest seed file kept, in bytes.
const MAX_SEED: usize = 6 * 1024;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let cases = PathBuf::from(args.next().unwrap_or_else(|| "tests/cases".into()));
    let out = PathBuf::from(args.next().unwrap_or_else(|| "fuzz/corpus".into()));
    match write(&cases, &out) {
        Ok(n) => {
            println!("fuzz-corpus: wrote {n} files under {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("fuzz-corpus: {e}");
            ExitCode::FAILURE
        }
    }
}

fn write(cases: &std::path::Path, out: &std::path::Path) -> Result<usize, String> {
    let seeds = seeds_from_cases(cases)?;
    let io = |e: std::io::Error| e.to_string();
    let mut written = 0;
    let raw_dir = out.join("parsers");
    let _ = std::fs::remove_dir_all(&raw_dir);
    std::fs::create_dir_all(&raw_dir).map_err(io)?;
    for target in Target::ALL {
        let dir = out.join(target.name());
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(io)?;
        let small: Vec<_> = seeds
            .get(&target)
            .into_iter()
            .flatten()
            .map(|(name, seed)| (name, seed, seed.to_input()))
            .filter(|(_, _, bytes)| bytes.len() <= MAX_SEED)
            .collect();
        // Evenly spaced over the (area-ordered) list, so every area contributes.
        let step = small.len().div_ceil(PER_TARGET).max(1);
        for (name, seed, bytes) in small.iter().step_by(step) {
            std::fs::write(dir.join(name.as_str()), bytes).map_err(io)?;
            written += 1;
            // The raw target: the first document as text, behind the selector of this target.
            let selector: u8 = match target {
                Target::Check => 1,
                Target::Qos => 2,
                Target::Allocate => 3,
                Target::Probes => 5,
                Target::Statuses => 6,
                Target::Review => 7,
                Target::Coverage => 8,
            };
            if written % 3 == 0
                && let Some(doc) = seed.docs.first()
            {
                let mut raw = vec![selector];
                raw.extend_from_slice(doc.to_string().as_bytes());
                std::fs::write(raw_dir.join(format!("{}-{name}", target.name())), raw).map_err(io)?;
                written += 1;
            }
        }
    }
    Ok(written)
}
