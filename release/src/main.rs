//! `podmut-release`: podmut's release packaging, run by `cargo xtask dist` (which builds the
//! inputs first). From the static `podmut` binary and the Kubewarden module it writes into
//! `--out`:
//!
//! - `podmut` (the binary), `podmut.wasm` (`podmut component` — the embedded component's exact
//!   bytes), `podmut.wasm.names` (`podmut component --names`: the function names split off its
//!   core module, for reading a trap's backtrace from another host), `podmut-kubewarden.wasm`
//!   (annotated) and `artifacthub-pkg.yml`;
//! - `image/`: the container image as an OCI image layout;
//! - `oci/component/`, `oci/kubewarden/`: the two wasm artefacts as OCI layouts;
//! - `podmut-<version>-x86_64-unknown-linux-musl.tar.gz` (`podmut`, `kubectl-podmut`, LICENSE,
//!   README.md, CHANGELOG.md, docs/, shell completions, man pages) and `krew/podmut.yaml`;
//! - `SHA256SUMS` (`sha256sum -c SHA256SUMS`).
//!
//! Every output is a function of the inputs and `--source-date-epoch` (the commit's time): the
//! same inputs give the same bytes and digests.

mod archive;
mod image;
mod krew;
mod kubewarden;
mod layout;
mod wasm;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use clap::Parser;
use serde_json::Value;

/// The release's Rust target (the static binary's).
const TARGET: &str = "x86_64-unknown-linux-musl";

/// podmut's release packaging (see the crate docs).
#[derive(Debug, Parser)]
#[command(name = "podmut-release", about)]
struct Args {
    /// The static release binary (its version, commit and component come from `podmut version`).
    #[arg(long, value_name = "FILE")]
    podmut: PathBuf,
    /// The Kubewarden waPC module (not yet annotated).
    #[arg(long, value_name = "FILE")]
    kubewarden: PathBuf,
    /// The workspace (LICENSE, README.md, CHANGELOG.md, kubewarden/metadata.yml, Cargo.toml).
    #[arg(long, value_name = "DIR")]
    workspace: PathBuf,
    /// Output directory (replaced; must be absent, empty or an earlier output).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Timestamp of every file and of the image (seconds since 1970; the commit's time).
    #[arg(long, value_name = "SECONDS")]
    source_date_epoch: u64,
}

/// What is being released.
#[derive(Debug, Clone)]
pub(crate) struct Release {
    /// `podmut version`'s version.
    pub(crate) version: String,
    /// `podmut version`'s gitCommit.
    pub(crate) git_commit: String,
    /// The repository URL (workspace `repository`).
    pub(crate) repository: String,
    /// SPDX licence (workspace `license`).
    pub(crate) license: String,
    /// `--source-date-epoch`.
    pub(crate) epoch: u64,
}

impl Release {
    /// The epoch as RFC 3339.
    pub(crate) fn created(&self) -> Result<String> {
        let t = time::OffsetDateTime::from_unix_timestamp(i64::try_from(self.epoch).context("epoch")?)
            .context("epoch out of range")?;
        t.format(&time::format_description::well_known::Rfc3339)
            .context("RFC 3339")
    }

    /// The archive's top directory (also its name without `.tar.gz`).
    fn archive_top(&self) -> String {
        format!("podmut-{}-{TARGET}", self.version)
    }
}

fn main() -> Result<()> {
    let args = Args::parse();
    let facts = version_facts(&args.podmut)?;
    let manifest = std::fs::read_to_string(args.workspace.join("Cargo.toml")).context("Cargo.toml")?;
    let release = Release {
        version: fact(&facts, "version")?,
        git_commit: fact(&facts, "gitCommit")?,
        repository: workspace_field(&manifest, "repository")?,
        license: workspace_field(&manifest, "license")?,
        epoch: args.source_date_epoch,
    };
    prepare_out(&args.out)?;
    let out = &args.out;
    let binary = read(&args.podmut)?;
    write_file(&out.join("podmut"), &binary, 0o755)?;

    // The component: exactly what `podmut component` writes, and what its digest says.
    let component = podmut_stdout(&args.podmut, &["component", "--output", "-"])?;
    if layout::sha256_hex(&component) != fact(&facts, "componentSha256")? {
        bail!("`podmut component` does not hash to `podmut version`'s componentSha256");
    }
    write_file(&out.join("podmut.wasm"), &component, 0o644)?;
    let names = podmut_stdout(&args.podmut, &["component", "--names", "--output", "-"])?;
    let named = podmut_splice::GuestNames::parse(&String::from_utf8_lossy(&names))
        .context("`podmut component --names`")?;
    if named.component != Some(podmut_splice::digest(&component)) || named.is_empty() {
        bail!("`podmut component --names` does not name the functions of `podmut component`'s component");
    }
    write_file(&out.join("podmut.wasm.names"), &names, 0o644)?;
    wasm::component(&release, &component, &out.join("oci").join("component"))?;

    // The Kubewarden policy.
    let metadata_yaml = std::fs::read_to_string(args.workspace.join("kubewarden/metadata.yml"))
        .context("kubewarden/metadata.yml")?;
    let metadata: Value = serde_yaml_ng::from_str(&metadata_yaml).context("kubewarden/metadata.yml")?;
    let usage = std::fs::read_to_string(args.workspace.join("kubewarden/README.md"))
        .context("kubewarden/README.md")?;
    let module = kubewarden::annotate(&read(&args.kubewarden)?, &metadata, &usage, &release.version)?;
    write_file(&out.join("podmut-kubewarden.wasm"), &module, 0o644)?;
    wasm::kubewarden(&release, &module, &out.join("oci").join("kubewarden"))?;
    write_file(
        &out.join("artifacthub-pkg.yml"),
        kubewarden::artifacthub(&release, &metadata)?.as_bytes(),
        0o644,
    )?;

    // The container image.
    image::write(&release, &binary, &out.join("image"))?;

    // The archive and krew.
    let top = release.archive_top();
    let archive_name = format!("{top}.tar.gz");
    let archive = archive::gzip(&archive::tar(
        &archive_entries(&args, &binary, &top)?,
        release.epoch,
    )?)?;
    write_file(&out.join(&archive_name), &archive, 0o644)?;
    let uri = format!(
        "{}/releases/download/v{}/{archive_name}",
        release.repository, release.version
    );
    let krew = krew::manifest(&release, &uri, &layout::sha256_hex(&archive), &top)?;
    std::fs::create_dir_all(out.join("krew")).context("krew/")?;
    write_file(&out.join("krew").join("podmut.yaml"), krew.as_bytes(), 0o644)?;

    // SHA256SUMS over the files (the layouts are content-addressed already).
    let mut sums = String::new();
    for name in [
        "podmut",
        "podmut.wasm",
        "podmut.wasm.names",
        "podmut-kubewarden.wasm",
        "artifacthub-pkg.yml",
        archive_name.as_str(),
        "krew/podmut.yaml",
    ] {
        sums.push_str(&format!(
            "{}  {name}\n",
            layout::sha256_hex(&read(&out.join(name))?)
        ));
    }
    write_file(&out.join("SHA256SUMS"), sums.as_bytes(), 0o644)?;
    eprintln!(
        "podmut-release: wrote {} for podmut {}",
        out.display(),
        release.version
    );
    Ok(())
}

/// The archive: both binary names, the licence and docs, completions and man pages.
fn archive_entries(args: &Args, binary: &[u8], top: &str) -> Result<Vec<archive::Entry>> {
    use archive::Entry;
    let file = |path: String, mode: u32, bytes: Vec<u8>| Entry::File { path, mode, bytes };
    let mut entries = vec![
        Entry::Dir(format!("{top}/")),
        file(format!("{top}/podmut"), 0o755, binary.to_vec()),
        file(format!("{top}/kubectl-podmut"), 0o755, binary.to_vec()),
    ];
    for doc in ["LICENSE", "README.md", "CHANGELOG.md"] {
        entries.push(file(
            format!("{top}/{doc}"),
            0o644,
            read(&args.workspace.join(doc))?,
        ));
    }
    // The README's links point into docs/: ship the pages it links to.
    entries.push(Entry::Dir(format!("{top}/docs/")));
    let mut pages: Vec<PathBuf> = std::fs::read_dir(args.workspace.join("docs"))
        .context("docs/")?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    for page in pages {
        let name = page
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        entries.push(file(format!("{top}/docs/{name}"), 0o644, read(&page)?));
    }
    entries.push(Entry::Dir(format!("{top}/completions/")));
    for (shell, name) in [
        ("bash", "podmut.bash"),
        ("zsh", "_podmut"),
        ("fish", "podmut.fish"),
    ] {
        let script = podmut_stdout(&args.podmut, &["completion", shell])?;
        entries.push(file(format!("{top}/completions/{name}"), 0o644, script));
    }
    let man = tempfile_dir(&args.out)?;
    let status = Command::new(&args.podmut)
        .arg("man")
        .arg("--out-dir")
        .arg(&man)
        .status()
        .context("podmut man")?;
    if !status.success() {
        bail!("`podmut man` failed ({status})");
    }
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&man)
        .context("man pages")?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    pages.sort();
    entries.push(Entry::Dir(format!("{top}/man/")));
    entries.push(Entry::Dir(format!("{top}/man/man1/")));
    for page in &pages {
        let name = page
            .file_name()
            .context("page name")?
            .to_string_lossy()
            .into_owned();
        entries.push(file(format!("{top}/man/man1/{name}"), 0o644, read(page)?));
    }
    std::fs::remove_dir_all(&man).context("removing the scratch man directory")?;
    Ok(entries)
}

/// A scratch directory beside the output.
fn tempfile_dir(out: &Path) -> Result<PathBuf> {
    let dir = out.join(".man");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

/// `podmut version -o json`.
fn version_facts(podmut: &Path) -> Result<Value> {
    let out = podmut_stdout(podmut, &["version", "-o", "json"])?;
    serde_json::from_slice(&out).context("`podmut version -o json` is not JSON")
}

fn fact(facts: &Value, name: &str) -> Result<String> {
    facts[name]
        .as_str()
        .map(str::to_owned)
        .with_context(|| format!("`podmut version -o json` has no {name}"))
}

/// `key = "value"` under `[workspace.package]` of the workspace Cargo.toml.
fn workspace_field(manifest: &str, key: &str) -> Result<String> {
    let section = manifest
        .split("[workspace.package]")
        .nth(1)
        .context("Cargo.toml: no [workspace.package]")?;
    section
        .lines()
        .take_while(|l| !l.starts_with('['))
        .find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == key).then(|| v.trim().trim_matches('"').to_owned())
        })
        .with_context(|| format!("Cargo.toml: [workspace.package] has no {key}"))
}

fn podmut_stdout(podmut: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let out = Command::new(podmut)
        .args(args)
        .output()
        .with_context(|| format!("cannot run {}", podmut.display()))?;
    if !out.status.success() {
        bail!(
            "`podmut {}` failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(out.stdout)
}

/// Remove an earlier output; refuse to remove a directory that is not one.
fn prepare_out(out: &Path) -> Result<()> {
    if out.exists() {
        let empty = std::fs::read_dir(out)
            .with_context(|| format!("cannot list {}", out.display()))?
            .next()
            .is_none();
        if !empty && !out.join("SHA256SUMS").is_file() {
            bail!(
                "{} is not empty and not an earlier `cargo xtask dist` output: refusing to replace it",
                out.display()
            );
        }
        std::fs::remove_dir_all(out).with_context(|| format!("cannot remove {}", out.display()))?;
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

fn write_file(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("cannot set the mode of {}", path.display()))
}
