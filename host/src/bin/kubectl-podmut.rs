//! `kubectl-podmut`: the same CLI as `podmut`, installable as a kubectl plugin (`kubectl podmut check ...`).
fn main() -> std::process::ExitCode {
    podmut::cli::main()
}
