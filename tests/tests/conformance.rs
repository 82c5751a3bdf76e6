//! The conformance fixtures as named, filterable tests (libtest-mimic).
//!
//! `cargo test -p podmut-conformance --test conformance -- update/` runs one area;
//! `PODMUT_BLESS=1` (`cargo xtask bless`) rewrites each case's `expect` from the native result and
//! prints the diff; it is refused under CI (`CI` set). `rules/every-origin-has-a-fixture` checks
//! that every rule origin of `crates/validation/src/rules.rs` is expected by some case, `rules/fixture-counts`
//! that core's generated fixture counts are current (bless rewrites them), and
//! `rules/table-through-the-component` that the component's `report.rules` is core's table, and
//! `vap/schema-table` that core's generated Pod schema table (`crates/vap/src/schema.rs`) is what
//! k8s-openapi says (bless rewrites it), and `check/read-and-check-is-read-documents-then-check`
//! that `documents.read-and-check` answers as `read-documents` and `check` do (natively and
//! through the component).

use libtest_mimic::{Arguments, Failed, Trial};

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let bless = std::env::var_os("PODMUT_BLESS").is_some_and(|v| !v.is_empty() && v != "0");
    if bless && std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
        eprintln!("PODMUT_BLESS is set under CI: CI checks the fixtures, it never rewrites them");
        return std::process::ExitCode::FAILURE;
    }
    let cases = match podmut_conformance::load_cases(&podmut_conformance::cases_dir()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cannot load the fixtures: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let coverage = {
        let cases = cases.clone();
        Trial::test("rules/every-origin-has-a-fixture", move || {
            podmut_conformance::origins::check_every_origin_has_a_fixture(&cases).map_err(Failed::from)
        })
    };
    let counts = {
        let cases = cases.clone();
        Trial::test("rules/fixture-counts", move || {
            podmut_conformance::origins::check_fixture_counts(&cases, bless).map_err(Failed::from)
        })
    };
    let table = Trial::test("rules/table-through-the-component", || {
        podmut_conformance::origins::check_component_table().map_err(Failed::from)
    });
    let schema = Trial::test("vap/schema-table", move || {
        podmut_conformance::vap_schema::check(bless).map_err(Failed::from)
    });
    let read_and_check = {
        let cases = cases.clone();
        Trial::test("check/read-and-check-is-read-documents-then-check", move || {
            podmut_conformance::read_and_check::check(&cases).map_err(Failed::from)
        })
    };
    let trials: Vec<Trial> = cases
        .into_iter()
        .map(|c| {
            let name = c.name.clone();
            Trial::test(name, move || {
                podmut_conformance::run_case(&c, bless).map_err(Failed::from)
            })
        })
        .chain([coverage, counts, table, schema, read_and_check])
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}
