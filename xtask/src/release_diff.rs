//! `cargo xtask oracle diff --from 1.37 --to 1.38`: what changed upstream between two Kubernetes
//! releases, for the files podmut follows — the reading list of adding a release profile
//! (docs/kubernetes-versions.md, "Adding a release").
//!
//! Both releases' sources come from the Go module proxy (`go mod download -json
//! k8s.io/kubernetes@vX`, into the Go module cache); a release is the pinned one of that minor
//! (`tests/oracle/releases.txt`) or a full `v1.38.0`. It prints the feature-gate specs that
//! differ for the gates podmut knows, the gates the newer release adds, and a diffstat of every
//! followed file, and writes each file's unified diff under `target/release-diff/<from>-<to>/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cmd::{Result, ensure_dir, stdout_of, workspace_root, write};
use crate::go_module::{Pin, cache_dir, go, pins};

/// The upstream files podmut's rules follow (validation, defaulting, strategies, QoS, gates,
/// admission plugins), relative to the `k8s.io/kubernetes` module.
const FOLLOWED: [&str; 12] = [
    "pkg/features/kube_features.go",
    "pkg/apis/core/validation/validation.go",
    "pkg/api/pod/util.go",
    "pkg/api/pod/warnings.go",
    "pkg/registry/core/pod/strategy.go",
    "pkg/apis/core/v1/defaults.go",
    "pkg/apis/core/v1/conversion.go",
    "pkg/apis/core/helper/qos/qos.go",
    "pkg/kubeapiserver/options/plugins.go",
    "plugin/pkg/admission/podresize/admission.go",
    "plugin/pkg/admission/nodedeclaredfeatures/admission.go",
    "plugin/pkg/admission/serviceaccount/admission.go",
];

/// `cargo xtask oracle diff --from A --to B`.
pub(crate) fn diff(args: &[String]) -> Result {
    let usage = || {
        "usage: cargo xtask oracle diff --from 1.37 --to 1.38 (a pinned minor or a full v1.38.0)".to_owned()
    };
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
            .ok_or_else(usage)
    };
    let (from, to) = (release(&flag("--from")?)?, release(&flag("--to")?)?);
    let (old, new) = (source(&from)?, source(&to)?);
    let out_dir = workspace_root()
        .join("target/release-diff")
        .join(format!("{from}-{to}"));
    ensure_dir(&out_dir)?;
    println!("# Kubernetes {from} -> {to}\n");
    gate_changes(&old, &new)?;
    println!("\n## Followed files (unified diffs in {})\n", out_dir.display());
    for file in FOLLOWED {
        let (a, b) = (old.join(file), new.join(file));
        let stat = match (a.exists(), b.exists()) {
            (false, false) => continue,
            (true, false) => "removed".to_owned(),
            (false, true) => "added".to_owned(),
            (true, true) => {
                let text = unified(&a, &b)?;
                let (plus, minus) = count(&text);
                write(&out_dir.join(format!("{}.diff", file.replace('/', "_"))), &text)?;
                format!("+{plus} -{minus}")
            }
        };
        println!("- {file}: {stat}");
    }
    Ok(())
}

/// `1.37` (the pinned patch release) or `v1.37.2` as `v1.37.2`.
fn release(text: &str) -> Result<String> {
    let t = text.trim_start_matches('v');
    let parts: Vec<&str> = t.split('.').collect();
    match parts.as_slice() {
        ["1", minor, _patch] if minor.parse::<u32>().is_ok() => Ok(format!("v{t}")),
        ["1", minor] => {
            let minor: u32 = minor
                .parse()
                .map_err(|_| format!("{text:?} is not a Kubernetes release"))?;
            pins()?
                .into_iter()
                .find_map(|p| match p {
                    Pin::Kubernetes(m, patch) if m == minor => Some(format!("v1.{m}.{patch}")),
                    _ => None,
                })
                .ok_or_else(|| {
                    format!("1.{minor} is not pinned in tests/oracle/releases.txt: name a full release (v1.{minor}.0)")
                })
        }
        _ => Err(format!("{text:?} is not a Kubernetes release (1.37 or v1.37.2)")),
    }
}

/// The module directory of `k8s.io/kubernetes@<version>` in the Go module cache.
fn source(version: &str) -> Result<PathBuf> {
    let mut c = go(&cache_dir());
    c.args([
        "mod",
        "download",
        "-json",
        &format!("k8s.io/kubernetes@{version}"),
    ]);
    let info = stdout_of(c)?;
    let dir = info
        .lines()
        .find_map(|l| l.trim().strip_prefix("\"Dir\": \""))
        .and_then(|rest| rest.strip_suffix("\","))
        .ok_or_else(|| format!("`go mod download` printed no Dir for k8s.io/kubernetes@{version}"))?;
    Ok(PathBuf::from(dir))
}

/// Each gate's `VersionedSpecs` block of `defaultVersionedKubernetesFeatureGates`, by name.
fn gate_specs(source: &Path) -> Result<Vec<(String, String)>> {
    let path = source.join("pkg/features/kube_features.go");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let start = text
        .find("defaultVersionedKubernetesFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{")
        .ok_or_else(|| format!("{}: no defaultVersionedKubernetesFeatureGates", path.display()))?;
    let mut gates = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in text[start..].lines().skip(1) {
        if line == "}" {
            break;
        }
        if let Some(name) = line.strip_prefix('\t').and_then(|l| l.strip_suffix(": {")) {
            current = Some((name.trim().to_owned(), String::new()));
        } else if line == "\t}," {
            gates.extend(current.take());
        } else if let Some((_, specs)) = current.as_mut() {
            specs.push_str(line.trim());
            specs.push('\n');
        }
    }
    Ok(gates)
}

/// The gates podmut knows whose specs differ, and the gates the newer release adds or removes.
fn gate_changes(old: &Path, new: &Path) -> Result {
    let (before, after) = (gate_specs(old)?, gate_specs(new)?);
    let find =
        |list: &[(String, String)], name: &str| list.iter().find(|(n, _)| n == name).map(|(_, s)| s.clone());
    let known: Vec<&str> = podmut_core::Gate::ALL.iter().map(|(g, _)| g.name()).collect();
    println!("## Feature gates podmut knows\n");
    for name in &known {
        match (find(&before, name), find(&after, name)) {
            (Some(a), Some(b)) if a == b => {}
            (a, b) => {
                println!("- {name}");
                for (label, specs) in [("before", a), ("after", b)] {
                    let specs = specs.unwrap_or_else(|| "(no such gate)\n".to_owned());
                    for line in specs.lines() {
                        println!("    {label}: {line}");
                    }
                }
            }
        }
    }
    println!("\n## Gates the newer release adds\n");
    for (name, specs) in &after {
        if find(&before, name).is_none() {
            println!("- {name}: {}", specs.lines().next().unwrap_or_default());
        }
    }
    println!("\n## Gates the newer release removes\n");
    for (name, _) in &before {
        if find(&after, name).is_none() {
            println!("- {name}");
        }
    }
    Ok(())
}

/// `git diff --no-index` of two files (exit 1 means they differ).
fn unified(a: &Path, b: &Path) -> Result<String> {
    let out = Command::new("git")
        .args(["diff", "--no-index", "--no-color", "--"])
        .arg(a)
        .arg(b)
        .output()
        .map_err(|e| format!("cannot run git diff: {e}"))?;
    match out.status.code() {
        Some(0 | 1) => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
        _ => Err(format!(
            "git diff {} {}: {}",
            a.display(),
            b.display(),
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

/// Added and removed lines of a unified diff.
fn count(diff: &str) -> (usize, usize) {
    let lines = diff
        .lines()
        .filter(|l| !l.starts_with("+++") && !l.starts_with("---"));
    lines.fold((0, 0), |(p, m), l| match l.as_bytes().first() {
        Some(b'+') => (p + 1, m),
        Some(b'-') => (p, m + 1),
        _ => (p, m),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_are_counted() {
        assert_eq!(count("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n+z\n"), (2, 1));
    }

    #[test]
    fn full_releases_are_taken_as_they_are() {
        assert_eq!(release("1.38.0").unwrap(), "v1.38.0");
        assert_eq!(release("v1.38.1").unwrap(), "v1.38.1");
        assert!(release("latest").is_err());
    }
}
