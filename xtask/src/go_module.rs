//! The releases the oracle pins (`tests/oracle/releases.txt`) and the Go modules built from them:
//! what `oracle`, `layouts` and the release diff share.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cmd::{Result, run, stdout_of, workspace_root};

/// One pinned component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Pin {
    /// `kubernetes v1.37.2`: (minor, patch).
    Kubernetes(u32, u32),
    /// `etcd v3.6.17`.
    Etcd(String),
    /// `helm v4.3.2`: the Helm CLI the chart's tests run.
    Helm(String),
}

/// The pin file.
fn pins_file() -> PathBuf {
    workspace_root().join("tests/oracle/releases.txt")
}

/// Read the pin file (the oracle crate reads the same file; its format is documented there).
pub(crate) fn pins() -> Result<Vec<Pin>> {
    let path = pins_file();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse_pins(&text, &path)
}

/// The pins in `text`, the contents of `path`.
fn parse_pins(text: &str, path: &Path) -> Result<Vec<Pin>> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || format!("{}: cannot read the line {line:?}", path.display());
        match line.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["kubernetes", v] => {
                let mut parts = v.trim_start_matches('v').split('.');
                let (Some("1"), Some(minor), Some(patch), None) =
                    (parts.next(), parts.next(), parts.next(), parts.next())
                else {
                    return Err(bad());
                };
                out.push(Pin::Kubernetes(
                    minor.parse().map_err(|_| bad())?,
                    patch.parse().map_err(|_| bad())?,
                ));
            }
            ["etcd", v] => out.push(Pin::Etcd((*v).to_owned())),
            ["helm", v] if v.starts_with("v4.") => out.push(Pin::Helm((*v).to_owned())),
            _ => return Err(bad()),
        }
    }
    Ok(out)
}

/// `$PODMUT_ORACLE_DIR`, else `~/.cache/podmut/oracle` (what the oracle crate reads too).
pub(crate) fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PODMUT_ORACLE_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    home.join(".cache/podmut/oracle")
}

/// `go` in `dir`, with the proxy's modules checked against the checksum database as usual.
pub(crate) fn go(dir: &Path) -> Command {
    let mut c = Command::new("go");
    c.current_dir(dir);
    c
}

/// Resolve the module in `dir` afresh (`go mod tidy` without the old go.sum).
pub(crate) fn tidy(dir: &Path) -> Result {
    let _ = std::fs::remove_file(dir.join("go.sum"));
    let mut tidy = go(dir);
    tidy.args(["mod", "tidy"]);
    run(tidy)
}

/// The go.mod of a module `name` that requires Kubernetes `v1.<minor>.<patch>`: every staging
/// module upstream's own go.mod pins at v0.0.0 replaced by its `v0.<minor>.<patch>` release, then
/// `tail`.
pub(crate) fn apiserver_go_mod(name: &str, minor: u32, patch: u32, tail: &str) -> Result<String> {
    let version = format!("v1.{minor}.{patch}");
    let staging_version = format!("v0.{minor}.{patch}");
    // The upstream module's own go.mod names the staging modules it pins at v0.0.0.
    let mut download = go(&cache_dir());
    download.args([
        "mod",
        "download",
        "-json",
        &format!("k8s.io/kubernetes@{version}"),
    ]);
    let info = stdout_of(download)?;
    let upstream_mod = json_string(&info, "GoMod")
        .ok_or_else(|| format!("`go mod download` printed no GoMod for k8s.io/kubernetes@{version}"))?;
    let upstream =
        std::fs::read_to_string(&upstream_mod).map_err(|e| format!("cannot read {upstream_mod}: {e}"))?;
    let staging = staging_modules(&upstream);
    if staging.is_empty() {
        return Err(format!("{upstream_mod} pins no staging module at v0.0.0"));
    }
    let mut go_mod =
        format!("module {name}\n\ngo 1.25\n\nrequire k8s.io/kubernetes {version}\n\nreplace (\n");
    for m in &staging {
        go_mod.push_str(&format!("\t{m} => {m} {staging_version}\n"));
    }
    go_mod.push_str(")\n");
    go_mod.push_str(tail);
    Ok(go_mod)
}

/// The modules a go.mod requires at exactly `v0.0.0` (Kubernetes' staging repositories).
fn staging_modules(go_mod: &str) -> Vec<String> {
    let mut out: Vec<String> = go_mod
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let (path, version) = (parts.next()?, parts.next()?);
            (version == "v0.0.0" && path.starts_with("k8s.io/")).then(|| path.to_owned())
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// A top-level string field of `go mod download -json`'s output (one flat object).
fn json_string(text: &str, key: &str) -> Option<String> {
    let needle = format!("\"{key}\": \"");
    let start = text.find(&needle)? + needle.len();
    let end = text[start..].find('"')?;
    Some(text[start..start + end].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staging_modules_are_those_at_v0_0_0() {
        let go_mod = "require (\n\tk8s.io/api v0.0.0\n\tk8s.io/utils v0.0.0-2025\n\tgithub.com/x/y v0.0.0\n\tk8s.io/client-go v0.0.0 // indirect\n)\n";
        assert_eq!(staging_modules(go_mod), ["k8s.io/api", "k8s.io/client-go"]);
    }

    #[test]
    fn pins_name_kubernetes_etcd_and_helm() {
        let path = Path::new("releases.txt");
        let pins = parse_pins("# c\nkubernetes v1.37.2\netcd v3.6.17\nhelm v4.3.2\n", path);
        assert_eq!(
            pins,
            Ok(vec![
                Pin::Kubernetes(37, 2),
                Pin::Etcd("v3.6.17".into()),
                Pin::Helm("v4.3.2".into())
            ])
        );
        assert!(parse_pins("helm 4.3.2\n", path).is_err());
        assert!(parse_pins("helm v3.19.0\n", path).is_err());
    }

    #[test]
    fn go_mod_download_json_is_read() {
        let text = "{\n\t\"Path\": \"k8s.io/kubernetes\",\n\t\"GoMod\": \"/m/v1.37.2.mod\",\n}";
        assert_eq!(json_string(text, "GoMod").as_deref(), Some("/m/v1.37.2.mod"));
        assert_eq!(json_string(text, "Zip"), None);
    }
}
