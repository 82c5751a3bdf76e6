use std::borrow::Cow;

use wasm_encoder::{
    CodeSection, Component, CustomSection, ExportKind, ExportSection, Function, FunctionSection, Instruction,
    Module, NameMap, NameSection, TypeSection,
};
use wasmparser::{Validator, WasmFeatures};

use super::*;

const MANGLED: &str = "_ZN11podmut_core6review17h0123456789abcdefE";

/// A core module with `functions` functions (each `unreachable`), exported, and a `name` section
/// naming the module and the first function when `named`.
fn module(functions: u32, named: bool) -> Vec<u8> {
    let mut types = TypeSection::new();
    types.ty().function([], []);
    let mut funcs = FunctionSection::new();
    let mut exports = ExportSection::new();
    let mut code = CodeSection::new();
    for i in 0..functions {
        funcs.function(0);
        exports.export(&format!("f{i}"), ExportKind::Func, i);
        let mut f = Function::new([]);
        f.instruction(&Instruction::Unreachable)
            .instruction(&Instruction::End);
        code.function(&f);
    }
    let mut m = Module::new();
    m.section(&types).section(&funcs).section(&exports).section(&code);
    if named {
        let mut names = NameSection::new();
        names.module("guest.wasm");
        let mut map = NameMap::new();
        map.append(0, MANGLED);
        names.functions(&map);
        m.section(&names);
    }
    m.section(&CustomSection {
        name: Cow::Borrowed("producers-like"),
        data: Cow::Borrowed(b"kept"),
    });
    m.finish()
}

/// A component: a custom section, a small shim module, the big module, another custom section.
fn component(big: &[u8]) -> Vec<u8> {
    let shim = module(1, false);
    let mut c = Component::new();
    c.section(&CustomSection {
        name: Cow::Borrowed("before"),
        data: Cow::Borrowed(b"1"),
    });
    c.section(&wasm_encoder::RawSection { id: 1, data: &shim });
    c.section(&wasm_encoder::RawSection { id: 1, data: big });
    c.section(&CustomSection {
        name: Cow::Borrowed("after"),
        data: Cow::Borrowed(b"2"),
    });
    c.finish()
}

fn validate(bytes: &[u8]) {
    Validator::new_with_features(WasmFeatures::all())
        .validate_all(bytes)
        .unwrap();
}

/// The top-level sections' (id, contents).
fn listed(bytes: &[u8], kind: &'static str) -> Vec<(u8, Vec<u8>)> {
    sections(bytes, kind)
        .unwrap()
        .into_iter()
        .map(|s| (s.id, bytes[s.contents].to_vec()))
        .collect()
}

#[test]
fn the_largest_core_module_is_the_code() {
    let big = module(5, true);
    let c = component(&big);
    validate(&c);
    assert_eq!(core_module(&c).unwrap(), &big[..]);
    let ranges = core_modules(&c).unwrap();
    assert_eq!(ranges.len(), 2);
    assert_eq!(&c[ranges[0].clone()], &module(1, false)[..]);
    assert_eq!(&c[ranges[1].clone()], &big[..]);
}

#[test]
fn replacing_the_module_keeps_every_other_section_byte_for_byte() {
    let big = module(5, true);
    let c = component(&big);
    let new = module(3, false);
    let out = replace_core_module(&c, &new).unwrap();
    validate(&out);
    let (before, after) = (listed(&c, COMPONENT), listed(&out, COMPONENT));
    assert_eq!(before.len(), after.len());
    for (i, (b, a)) in before.iter().zip(&after).enumerate() {
        if i == 2 {
            assert_eq!(a, &(1, new.clone()), "the big module is replaced");
        } else {
            assert_eq!(a, b, "section {i} is unchanged");
        }
    }
    assert_eq!(&out[..HEADER], &c[..HEADER]);
    // The same splice again with the original module gives back the original bytes.
    assert_eq!(replace_core_module(&out, &big).unwrap_or_default(), c);
}

#[test]
fn the_inputs_must_be_a_component_and_a_module() {
    let big = module(2, true);
    let c = component(&big);
    assert!(matches!(
        core_module(&big),
        Err(SpliceError::WrongKind {
            expected: "component",
            ..
        })
    ));
    assert!(matches!(
        replace_core_module(&c, &c),
        Err(SpliceError::WrongKind {
            expected: "core module",
            ..
        })
    ));
    assert!(matches!(
        core_module(b"\0asm\x0d\0\x01\0garbage"),
        Err(SpliceError::Parse { .. })
    ));
    let empty = Component::new().finish();
    assert!(matches!(core_module(&empty), Err(SpliceError::NoCoreModule)));
}

#[test]
fn splitting_names_keeps_the_module_name_and_the_code() {
    let named = module(4, true);
    let (stripped, names) = split_names(&named).unwrap();
    validate(&stripped);
    assert_eq!(names.module.as_deref(), Some("guest.wasm"));
    assert_eq!(
        names.function(0),
        Some("podmut_core::review"),
        "demangled, no hash"
    );
    assert_eq!(names.function(1), None);
    assert!(stripped.len() < named.len());
    // Split again: no function names left, the module name still there.
    let (again, none) = split_names(&stripped).unwrap();
    assert!(none.is_empty());
    assert_eq!(none.module.as_deref(), Some("guest.wasm"));
    assert_eq!(again, stripped, "nothing left to split");
    // Every section but `name` is unchanged (code, exports, the other custom section).
    let kept = |bytes: &[u8]| -> Vec<(u8, Vec<u8>)> {
        listed(bytes, MODULE)
            .into_iter()
            .filter(|(id, c)| !(*id == 0 && c.get(1..5) == Some(b"name")))
            .collect()
    };
    assert_eq!(kept(&named), kept(&stripped));
    // A module without a name section is returned as it is.
    let plain = module(2, false);
    assert_eq!(split_names(&plain).unwrap(), (plain, GuestNames::default()));
}

#[test]
fn a_component_split_names_its_own_digest() {
    let c = component(&module(3, true));
    let (out, names) = split_component_names(&c).unwrap();
    validate(&out);
    assert_eq!(names.component, Some(digest(&out)));
    assert_eq!(names.function(0), Some("podmut_core::review"));
    assert!(split_names(core_module(&out).unwrap()).unwrap().1.is_empty());
}

#[test]
fn the_names_file_reads_back_and_names_a_bad_line() {
    let names = GuestNames {
        module: Some("podmut_guest.wasm".into()),
        component: Some(digest(b"x")),
        functions: [(0, "a::b".to_owned()), (7, "c<d as e>::f".to_owned())].into(),
    };
    assert_eq!(GuestNames::parse(&names.to_text()).unwrap(), names);
    let err = GuestNames::parse("# c\nmodule m\n12 no tab\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 3 of the names file: expected INDEX<TAB>NAME"
    );
    let err = GuestNames::parse("x\ty\n").unwrap_err();
    assert!(err.to_string().contains("line 1"), "{err}");
}

#[test]
fn optimise_file_takes_a_core_module_too() {
    let dir = std::env::temp_dir().join(format!("podmut-splice-core-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.wasm");
    std::fs::write(&input, module(3, true)).unwrap();
    let done = optimise_file(&input, &dir, "policy", None).unwrap();
    let out = std::fs::read(&done.component).unwrap();
    validate(&out);
    assert!(wasmparser::Parser::is_core_wasm(&out));
    assert_eq!(out, split_names(&module(3, true)).unwrap().0);
    let names = GuestNames::parse(&std::fs::read_to_string(&done.names).unwrap()).unwrap();
    assert_eq!(names.component, Some(digest(&out)));
    assert_eq!(names.function(0), Some("podmut_core::review"));
    std::fs::remove_dir_all(&dir).unwrap();
}
