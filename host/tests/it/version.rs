//! `podmut version`, `--version`, `podmut completion` and the man pages.

use std::process::Command;

use crate::support::{json_of, run, stderr, stdout, tempdir};

fn hex_sha256(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn version_json_names_the_build_and_the_embedded_component() {
    let o = run(&["version", "-o", "json"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    let component = run(&["component", "--output", "-"]);
    assert!(component.status.success());
    assert_eq!(v["componentSha256"], hex_sha256(&component.stdout));
    assert!(
        v["wasmtime"].as_str().unwrap().starts_with("48."),
        "the wasmtime the workspace links: {v}"
    );
    let k8s = v["kubernetes"].as_str().unwrap();
    let (major, minor) = k8s.split_once('.').unwrap();
    assert_eq!(major, "1", "{v}");
    assert!(minor.parse::<u32>().unwrap() >= 37, "{v}");
    let supported = v["kubernetesSupported"].as_array().unwrap();
    assert!(
        supported.contains(&v["kubernetes"]),
        "the default is supported: {v}"
    );
    let commit = v["gitCommit"].as_str().unwrap();
    let head = Command::new("git")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["rev-parse", "HEAD"])
        .output();
    match head {
        Ok(h) if h.status.success() => {
            assert_eq!(commit, String::from_utf8_lossy(&h.stdout).trim(), "{v}");
        }
        _ => assert_eq!(commit, "unknown", "{v}"),
    }
    assert_eq!(
        v.as_object().unwrap().len(),
        6,
        "exactly the documented fields: {v}"
    );
}

#[test]
fn dash_dash_version_prints_the_same_facts_on_one_line() {
    let json = json_of(&run(&["version", "-o", "json"]));
    let o = run(&["--version"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.starts_with("podmut "), "{text}");
    for field in [
        "version",
        "gitCommit",
        "componentSha256",
        "wasmtime",
        "kubernetes",
    ] {
        let value = json[field].as_str().unwrap();
        assert!(text.contains(value), "--version lacks {field} {value}: {text}");
    }
    let plain = stdout(&run(&["version"]));
    assert!(
        plain.contains(json["componentSha256"].as_str().unwrap()),
        "{plain}"
    );
}

#[test]
fn completion_scripts_name_every_command() {
    for shell in ["bash", "zsh", "fish"] {
        let o = run(&["completion", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        for command in ["check", "review", "serve", "version", "completion"] {
            assert!(script.contains(command), "{shell} completion lacks {command}");
        }
        for hidden in ["precompile", "out-dir"] {
            assert!(
                !script.contains(hidden),
                "{shell}: the hidden packaging commands stay hidden"
            );
        }
    }
    // The bash script is valid bash.
    let dir = tempdir();
    let file = dir.path().join("podmut.bash");
    std::fs::write(&file, run(&["completion", "bash"]).stdout).unwrap();
    let syntax = Command::new("bash").arg("-n").arg(&file).output().unwrap();
    assert!(syntax.status.success(), "{}", stderr(&syntax));
    assert_eq!(run(&["completion", "tcsh"]).status.code(), Some(2));
}

#[test]
fn man_pages_cover_the_commands() {
    let dir = tempdir();
    let out = dir.path().join("man");
    let o = run(&["man", "--out-dir", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let top = std::fs::read_to_string(out.join("podmut.1")).unwrap();
    assert!(top.contains(".TH podmut 1"), "{top}");
    assert!(
        top.contains("podmut\\-check(1)"),
        "the top page lists the commands"
    );
    let check = std::fs::read_to_string(out.join("podmut-check.1")).unwrap();
    assert!(check.contains("\\-\\-subresource"), "{check}");
    assert!(
        !out.join("podmut-precompile.1").exists(),
        "no page for the hidden commands"
    );
}
