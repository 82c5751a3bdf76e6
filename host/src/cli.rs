//! The `podmut` command line (docs/cli.md is the contract: flags, `-o json` shapes, exit codes).
//!
//! Exit codes: 0 allowed, 1 denied, 2 bad input or usage (message on stderr naming the file and the
//! problem), 3 the component failed (trap, timeout, out of memory).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::error::{CallError, blamed_input, describe_input_error};
use crate::runtime::{CacheMode, ComponentSource, Runtime, RuntimeOptions};

mod admission_review;
mod batch;
mod check;
mod component;
mod connection_args;
mod coverage;
mod inputs;
mod live;
mod live_args;
mod node;
mod plan;
mod playground;
mod qos;
mod review;
mod rollout;
mod rules;
mod serve;
mod test;
mod vap;
mod version;

/// podmut: is this Pod change legal, what QoS results, can the node allocate it, what will the
/// kubelet's probes do. Every answer comes from the podmut WebAssembly component.
#[derive(Debug, Parser)]
#[command(name = "podmut", version = crate::version::ONE_LINE, about, long_about = None, max_term_width = 110)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate a Pod create (no --old) or update on a request path, like the API server.
    Check(check::CheckArgs),
    /// Print a Pod's QoS class.
    Qos(qos::QosArgs),
    /// Decide Allocated / Deferred / Infeasible for a Pod change on a node (kubelet).
    Allocate(node::AllocateArgs),
    /// The kubelet's probe-worker plan for an old -> new Pod (KEP-6318, KEP-5972).
    Probes(node::ProbesArgs),
    /// The container statuses the kubelet would publish (Unallocated, removed-status GC).
    Statuses(node::StatusesArgs),
    /// Check admission configuration against KEP-5972's fail-closed rule for pods/dynamic.
    Coverage(coverage::CoverageArgs),
    /// Evaluate ValidatingAdmissionPolicies on a Pod change offline (CEL, bindings, params).
    Vap(vap::VapArgs),
    /// Run test suites of Pod changes and their expected answers (offline, and against a cluster).
    Test(test::TestArgs),
    /// Answer an AdmissionReview (admission.k8s.io/v1) from a file or stdin.
    Review(review::ReviewArgs),
    /// One report of what a Pod change does: verdict, QoS, allocation, probes, statuses.
    Plan(plan::PlanArgs),
    /// Print the AdmissionReview request the API server would send a webhook for a Pod change.
    AdmissionReview(admission_review::AdmissionReviewArgs),
    /// List every rule origin: request paths, upstream source, fixtures (-o text|json|yaml|markdown).
    Rules(rules::RulesArgs),
    /// Print one rule origin's entry: paths, upstream source, fixtures and what it asks.
    Explain(rules::ExplainArgs),
    /// Serve the component as an HTTPS validating admission webhook.
    Serve(serve::ServeArgs),
    /// Serve the browser pod-diff playground.
    Playground(playground::PlaygroundArgs),
    /// Write the exact component the CLI and webhook run.
    Component(component::ComponentArgs),
    /// Print podmut's version, commit, component digest, wasmtime and Kubernetes generation.
    Version(version::VersionArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completion(version::CompletionArgs),
    /// Write the man pages (used by `cargo xtask dist`).
    #[command(hide = true)]
    Man(version::ManArgs),
    /// Compile the embedded component to machine code for this architecture's baseline CPU (used
    /// by `cargo xtask dist`, which embeds the result in the release binary).
    #[command(hide = true)]
    Precompile(component::PrecompileArgs),
}

/// Output format of the judging commands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Human-readable.
    #[default]
    Text,
    /// One JSON object (the documented schema).
    Json,
    /// The same object as YAML.
    Yaml,
}

/// Options shared by every command that runs the component.
#[derive(Debug, Clone, Args)]
pub struct PolicyArgs {
    /// Run this component (.wasm) instead of the embedded one.
    #[arg(long, value_name = "FILE.wasm", env = "PODMUT_POLICY")]
    pub policy: Option<PathBuf>,
    /// Directory for compiled components (default: $XDG_CACHE_HOME/podmut or ~/.cache/podmut).
    #[arg(long, value_name = "DIR", env = "PODMUT_CACHE_DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Compile the component in memory every time.
    #[arg(long)]
    pub no_cache: bool,
}

impl PolicyArgs {
    /// Where the component comes from.
    pub fn source(&self) -> ComponentSource {
        self.policy
            .clone()
            .map_or(ComponentSource::Embedded, ComponentSource::File)
    }

    /// The cache mode the flags ask for.
    pub fn cache(&self) -> CacheMode {
        if self.no_cache {
            CacheMode::Off
        } else {
            self.cache_dir.clone().map_or(CacheMode::Default, CacheMode::Dir)
        }
    }

    /// Load the component for a one-shot CLI call (on-demand allocation: nothing to pool).
    pub fn runtime(&self) -> Result<Runtime, Failure> {
        let options = RuntimeOptions {
            pooling: false,
            cache: self.cache(),
            ..RuntimeOptions::default()
        };
        Runtime::load(&self.source(), options).map_err(|e| self.load_failure(&e))
    }

    /// A component that cannot be loaded; for a `--policy` file the message says whether it is not
    /// a component at all or not a podmut one, and names the file (exit 3, as every load failure).
    pub fn load_failure(&self, e: &crate::error::HostError) -> Failure {
        use crate::error::HostError;
        match (&self.policy, e) {
            (Some(path), HostError::Compile(_)) => Failure::internal(format!(
                "--policy {}: not a WebAssembly component podmut can run: {e}",
                path.display()
            )),
            (Some(path), HostError::Link(_)) => Failure::internal(format!(
                "--policy {}: not a podmut component (its imports or exports do not fit podmut:policy): {e}",
                path.display()
            )),
            (Some(_), HostError::Read { .. }) => Failure::internal(format!("--policy: {e}")),
            _ => Failure::internal(e.to_string()),
        }
    }
}

/// Why a command did not produce a verdict: the exit code and the message for stderr.
#[derive(Debug)]
pub struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    /// Bad input or usage (exit 2).
    pub fn input(message: impl Into<String>) -> Self {
        Self {
            code: 2,
            message: message.into(),
        }
    }

    /// The message for stderr.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The component or host failed (exit 3).
    pub fn internal(message: impl Into<String>) -> Self {
        Self {
            code: 3,
            message: message.into(),
        }
    }

    /// Map a component call error, naming the file an input error blames.
    pub fn from_call(e: CallError, files: &[(&str, &str)]) -> Self {
        match e {
            CallError::Input(ie) => {
                let blamed = blamed_input(&ie)
                    .and_then(|i| files.iter().find(|(name, _)| *name == i))
                    .map(|(_, f)| *f)
                    .filter(|f| !f.is_empty());
                let text = describe_input_error(&ie);
                match blamed {
                    Some(file) => {
                        let msg = text
                            .split_once(": ")
                            .map_or(text.as_str(), |(_, rest)| rest)
                            .to_owned();
                        Failure::input(format!("{file}: {msg}"))
                    }
                    None => Failure::input(text),
                }
            }
            CallError::Host(h) => Failure::internal(h.to_string()),
        }
    }
}

/// Read a file, or stdin for `-`.
pub fn read_input(path: &Path, flag: &str) -> Result<String, Failure> {
    if path == Path::new("-") {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| Failure::input(format!("cannot read {flag} from stdin: {e}")))?;
        return Ok(s);
    }
    std::fs::read_to_string(path)
        .map_err(|e| Failure::input(format!("cannot read {flag} {}: {e}", path.display())))
}

/// Print to stdout, ignoring a closed pipe.
pub fn emit(text: &str) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Parse the arguments and run; the process exit code follows the contract.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(a) if a.live.is_live() => live::run(&a),
        Command::Check(a) => check::run(&a),
        Command::Qos(a) => qos::run(&a),
        Command::Allocate(a) => node::run_allocate(&a),
        Command::Probes(a) => node::run_probes(&a),
        Command::Statuses(a) => node::run_statuses(&a),
        Command::Coverage(a) => coverage::run(&a),
        Command::Vap(a) => vap::run(&a),
        Command::Test(a) => test::run(&a),
        Command::Review(a) => review::run(&a),
        Command::AdmissionReview(a) => admission_review::run(&a),
        Command::Plan(a) => plan::run(&a),
        Command::Rules(a) => rules::run_rules(&a),
        Command::Explain(a) => rules::run_explain(&a),
        Command::Serve(a) => serve::run(&a),
        Command::Playground(a) => playground::run(&a),
        Command::Component(a) => component::run(&a),
        Command::Version(a) => version::run(&a),
        Command::Completion(a) => version::completion(&a),
        Command::Man(a) => version::man(&a),
        Command::Precompile(a) => component::precompile(&a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(f) => {
            eprintln!("podmut: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}
