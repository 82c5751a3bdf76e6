//! `podmut`: see `podmut --help`. All logic lives in the library (`podmut::cli`).
fn main() -> std::process::ExitCode {
    podmut::cli::main()
}
