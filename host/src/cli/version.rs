//! `podmut version`, `podmut completion` and the man pages: what this binary is and how shells
//! and `man` learn its commands.

use std::path::PathBuf;

use clap::{Args, CommandFactory};

use super::{Cli, Failure, OutputFormat, emit};
use crate::version::BUILD;

/// Arguments of `podmut version`.
#[derive(Debug, Args)]
pub(crate) struct VersionArgs {
    /// Output format.
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
}

pub(crate) fn run(a: &VersionArgs) -> Result<u8, Failure> {
    let text = match a.output {
        OutputFormat::Text => format!(
            "podmut {}\ngit commit: {}\ncomponent sha256: {}\nwasmtime: {}\nkubernetes: {} (default; supported: {}, preview)\n",
            BUILD.version,
            BUILD.git_commit,
            BUILD.component_sha256,
            BUILD.wasmtime,
            BUILD.kubernetes,
            BUILD.kubernetes_supported.join(", ")
        ),
        OutputFormat::Json => serde_json::to_string_pretty(&BUILD)
            .map(|s| s + "\n")
            .map_err(|e| Failure::internal(format!("cannot encode the version: {e}")))?,
        OutputFormat::Yaml => serde_json::to_value(BUILD)
            .map(|v| crate::output::to_yaml_string(&v))
            .map_err(|e| Failure::internal(format!("cannot encode the version: {e}")))?,
    };
    emit(&text);
    Ok(0)
}

/// Arguments of `podmut completion`.
#[derive(Debug, Args)]
pub(crate) struct CompletionArgs {
    /// The shell: `source <(podmut completion bash)`, or write the script where the shell looks
    /// (e.g. `podmut completion zsh > "${fpath[1]}/_podmut"`).
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// The command tree users see: the hidden packaging commands (`man`, `precompile`) left out,
/// which clap_complete and clap_mangen would otherwise list.
fn public_command() -> clap::Command {
    let full = Cli::command();
    let visible: Vec<clap::Command> = full
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .cloned()
        .collect();
    let mut public = clap::Command::new("podmut")
        .version(crate::version::ONE_LINE)
        .subcommands(visible);
    if let Some(about) = full.get_about() {
        public = public.about(about.clone());
    }
    public
}

pub(crate) fn completion(a: &CompletionArgs) -> Result<u8, Failure> {
    let mut out = Vec::new();
    clap_complete::generate(a.shell, &mut public_command(), "podmut", &mut out);
    emit(&String::from_utf8_lossy(&out));
    Ok(0)
}

/// Arguments of `podmut man` (hidden: packaging writes the pages into the release archive).
#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// Directory to write `podmut.1` and one `podmut-<command>.1` per command into.
    #[arg(long, value_name = "DIR")]
    out_dir: PathBuf,
}

pub(crate) fn man(a: &ManArgs) -> Result<u8, Failure> {
    std::fs::create_dir_all(&a.out_dir)
        .map_err(|e| Failure::input(format!("cannot create {}: {e}", a.out_dir.display())))?;
    clap_mangen::generate_to(public_command(), &a.out_dir)
        .map_err(|e| Failure::input(format!("cannot write man pages to {}: {e}", a.out_dir.display())))?;
    Ok(0)
}
