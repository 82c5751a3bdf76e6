//! The release files `cargo xtask dist` writes, checked the way a user meets them: the static
//! binary, `podmut version`, the component and its digest, the precompiled first run, the OCI
//! image layout, the Kubewarden module's metadata, SHA256SUMS, the archive and krew manifest, a
//! second packaging giving the same bytes, and a round trip through a local OCI registry.
//!
//! They need a dist output (`PODMUT_DIST_DIR`), so a plain `cargo test` reports them as ignored.
//! `cargo xtask ci` runs them (`-- --ignored`) on its own dist output, with docker-registry and
//! skopeo installed by `.ci/run`; run that way, a test whose prerequisite is missing fails.
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

/// The dist directory, `PODMUT_DIST_DIR` (these tests are ignored unless asked for; asked for
/// without one, they fail).
fn dist() -> PathBuf {
    std::env::var_os("PODMUT_DIST_DIR").map_or_else(
        || panic!("this test needs PODMUT_DIST_DIR, a `cargo xtask dist` output (cargo xtask ci sets it)"),
        PathBuf::from,
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn json_file(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn version_json(d: &Path) -> Value {
    let out = run(Command::new(d.join("podmut")).args(["version", "-o", "json"]));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn blob(layout: &Path, digest: &str) -> Vec<u8> {
    let hex = digest.strip_prefix("sha256:").unwrap();
    let bytes = std::fs::read(layout.join("blobs/sha256").join(hex)).unwrap();
    assert_eq!(sha256_hex(&bytes), hex, "blob {digest} holds other bytes");
    bytes
}

/// The layout's only manifest (checked against its descriptor) and its tag.
fn manifest(layout: &Path) -> (Value, String, String) {
    let header = json_file(&layout.join("oci-layout"));
    assert_eq!(header["imageLayoutVersion"], "1.0.0");
    let index = json_file(&layout.join("index.json"));
    assert_eq!(index["schemaVersion"], 2);
    let entries = index["manifests"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{index}");
    let entry = &entries[0];
    assert_eq!(entry["mediaType"], "application/vnd.oci.image.manifest.v1+json");
    let digest = entry["digest"].as_str().unwrap().to_owned();
    let bytes = blob(layout, &digest);
    assert_eq!(entry["size"], bytes.len());
    let tag = entry["annotations"]["org.opencontainers.image.ref.name"]
        .as_str()
        .unwrap()
        .to_owned();
    (serde_json::from_slice(&bytes).unwrap(), tag, digest)
}

#[test]
#[ignore = "needs PODMUT_DIST_DIR, a `cargo xtask dist` output; run with --ignored (cargo xtask ci does)"]
fn the_binary_is_statically_linked() {
    let d = dist();
    let out = Command::new("ldd").arg(d.join("podmut")).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("statically linked") || text.contains("not a dynamic executable"),
        "ldd: {text}"
    );
}

#[test]
#[ignore = "needs PODMUT_DIST_DIR, a `cargo xtask dist` output; run with --ignored (cargo xtask ci does)"]
fn version_names_the_shipped_component() {
    let d = dist();
    let v = version_json(&d);
    for field in [
        "version",
        "gitCommit",
        "componentSha256",
        "wasmtime",
        "kubernetes",
    ] {
        assert!(v[field].as_str().is_some_and(|s| !s.is_empty()), "{field}: {v}");
    }
    let shipped = std::fs::read(d.join("podmut.wasm")).unwrap();
    let written = run(Command::new(d.join("podmut")).args(["component", "--output", "-"])).stdout;
    assert!(
        shipped == written,
        "podmut.wasm is not what `podmut component` writes"
    );
    assert_eq!(v["componentSha256"], sha256_hex(&shipped));
    // When the build's own component is named (cargo xtask ci names it), the very same bytes.
    if let Some(built) = std::env::var_os("PODMUT_GUEST_WASM") {
        assert!(
            std::fs::read(built).unwrap() == shipped,
            "podmut.wasm is the component the build made"
        );
    }
}

/// podmut.wasm ships without function names; podmut.wasm.names beside it (what
/// `podmut component --names` writes) names them, for this very component.
#[test]
#[ignore = "needs PODMUT_DIST_DIR, a `cargo xtask dist` output; run with --ignored (cargo xtask ci does)"]
fn the_names_file_names_the_shipped_component() {
    let d = dist();
    let shipped = std::fs::read(d.join("podmut.wasm")).unwrap();
    let (_, left) = podmut_splice::split_names(podmut_splice::core_module(&shipped).unwrap()).unwrap();
    assert!(left.is_empty(), "podmut.wasm still has function names");
    assert_eq!(
        left.module.as_deref(),
        Some("podmut_guest.wasm"),
        "the module keeps its own name"
    );
    let text = std::fs::read_to_string(d.join("podmut.wasm.names")).unwrap();
    let written = run(Command::new(d.join("podmut")).args(["component", "--names", "--output", "-"])).stdout;
    assert!(
        text.as_bytes() == written,
        "podmut.wasm.names is what `podmut component --names` writes"
    );
    let names = podmut_splice::GuestNames::parse(&text).unwrap();
    assert_eq!(names.component, Some(format!("sha256:{}", sha256_hex(&shipped))));
    assert_eq!(names.module.as_deref(), Some("podmut_guest.wasm"));
    assert!(
        names.functions.values().any(|n| n.starts_with("podmut_core::")),
        "the rules' functions are named"
    );
}

/// The first run on an empty cache takes the precompiled path: no fallback note, and nothing is
/// compiled into the cache (the compile path would leave a `.cwasm` there). The time it takes is
/// a benchmark (BENCHMARKS.md, "The CLI"), not asserted here.
#[test]
#[ignore = "needs PODMUT_DIST_DIR, a `cargo xtask dist` output; run with --ignored (cargo xtask ci does)"]
fn first_run_deserializes_the_precompiled_code() {
    let d = dist();
    let cache = scratch("dist-first-run-cache");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies/examples/01-image-update");
    let out = Command::new(d.join("podmut"))
        .env("PODMUT_CACHE_DIR", &cache)
        .arg("check")
        .arg("--old")
        .arg(example.join("old.yaml"))
        .arg("--new")
        .arg(example.join("new.yaml"))
        .args(["-o", "json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    assert!(!stderr.contains("note:"), "the fallback note: {stderr}");
    let left: Vec<_> = std::fs::read_dir(&cache).unwrap().collect();
    assert!(left.is_empty(), "the cache was written: {left:?}");

    // The same check on a build without the artefact fills the cache: the assertion above can
    // tell the two paths apart. (`podmut --policy` never uses the embedded artefact.)
    let policy = cache.join("..").join("dist-first-run-policy.wasm");
    std::fs::copy(d.join("podmut.wasm"), &policy).unwrap();
    let compiled = Command::new(d.join("podmut"))
        .env("PODMUT_CACHE_DIR", &cache)
        .arg("check")
        .arg("--policy")
        .arg(&policy)
        .arg("--new")
        .arg(example.join("new.yaml"))
        .output()
        .unwrap();
    assert_eq!(compiled.status.code(), Some(0));
    assert_eq!(
        std::fs::read_dir(&cache).unwrap().count(),
        1,
        "the compile path caches"
    );
}

/// `podmut serve --no-cache` (the Deployment's flags) answers reviews from the precompiled code.
#[test]
#[ignore = "needs PODMUT_DIST_DIR, a `cargo xtask dist` output; run with --ignored (cargo xtask ci does)"]
fn serve_without_a_cache_answers_from_the_precompiled_code() {
    let d = dist();
    let dir = scratch("dist-serve");
    let ca = dir.join("ca.pem");
    let addr = free_addr();
    let mut server = Guard(
        Command::new(d.join("podmut"))
            .args([
                "serve",
                "--self-signed",
                "--no-cache",
                "--addr",
                &addr,
                "--ca-out",
            ])
            .arg(&ca)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let review = dir.join("review.json");
    std::fs::write(&review, REVIEW).unwrap();
    wait_for_file(&ca, &mut server.0);
    let answer = Command::new(d.join("podmut"))
        .args(["review", "--server", &format!("https://{addr}/validate"), "--ca"])
        .arg(&ca)
        .arg(&review)
        .output()
        .unwrap();
    // The client retries refused connections until the server answers; the CA file it reads at
    // start is written by the server once it has its certificate, so the test waits for it first.
    assert_eq!(
        answer.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&answer.stdout),
        String::from_utf8_lossy(&answer.stderr)
    );
    let v: Value = serde_json::from_slice(&answer.stdout).unwrap();
    assert_eq!(v["response"]["uid"], "dist-1");
    assert_eq!(v["response"]["allowed"], true);
    // The machine code runs where it lies in the binary's read-only data (podmut::precompiled):
    // besides its own text, the executable's file has a second executable mapping. A copy would
    // be anonymous memory instead.
    let maps = std::fs::read_to_string(format!("/proc/{}/maps", server.0.id())).unwrap();
    let exe = std::fs::canonicalize(d.join("podmut")).unwrap();
    let executable_ranges = maps
        .lines()
        .filter(|l| l.ends_with(&*exe.to_string_lossy()))
        .filter(|l| {
            l.split_whitespace()
                .nth(1)
                .is_some_and(|perms| perms.contains('x'))
        })
        .count();
    assert!(
        executable_ranges >= 2,
        "one executable mapping of {}:\n{maps}",
        exe.display()
    );
    let child = server.stop();
    let stderr = String::from_utf8_lossy(&child.stderr);
    assert!(!stderr.contains("note: the precompiled"), "fallback: {stderr}");
}

const REVIEW: &str = r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
  "uid":"dist-1","kind":{"group":"","version":"v1","kind":"Pod"},
  "resource":{"group":"","version":"v1","resource":"pods"},"subResource":"","namespace":"default",
  "operation":"UPDATE","userInfo":{"username":"t"},
  "object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w","namespace":"default","uid":"u","resourceVersion":"2"},
            "spec":{"containers":[{"name":"a","image":"busybox:2"}]}},
  "oldObject":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w","namespace":"default","uid":"u","resourceVersion":"1"},
            "spec":{"containers":[{"name":"a","image":"busybox:1"}]}}}}"#;

#[test]
#[ignore = "needs PODMUT_DIST_DIR, a `cargo xtask dist` output; run with --ignored (cargo xtask ci does)"]
fn the_image_layout_runs_the_static_binary_as_non_root() {
    let d = dist();
    let layout = d.join("image");
    let v = version_json(&d);
    let (manifest, tag, _) = manifest(&layout);
    assert_eq!(tag, v["version"]);
    assert_eq!(manifest["schemaVersion"], 2);
    assert_eq!(
        manifest["config"]["mediaType"],
        "application/vnd.oci.image.config.v1+json"
    );
    let annotations = &manifest["annotations"];
    assert_eq!(annotations["org.opencontainers.image.version"], v["version"]);
    assert_eq!(annotations["org.opencontainers.image.revision"], v["gitCommit"]);
    assert_eq!(annotations["org.opencontainers.image.licenses"], "Apache-2.0");
    assert!(
        annotations["org.opencontainers.image.source"]
            .as_str()
            .unwrap()
            .starts_with("https://")
    );

    let config: Value =
        serde_json::from_slice(&blob(&layout, manifest["config"]["digest"].as_str().unwrap())).unwrap();
    assert_eq!(config["os"], "linux");
    assert_eq!(config["architecture"], "amd64");
    let user = config["config"]["User"].as_str().unwrap();
    let (uid, gid) = user.split_once(':').unwrap();
    assert!(
        uid.parse::<u32>().unwrap() > 0 && gid.parse::<u32>().is_ok(),
        "numeric non-root: {user}"
    );
    assert_eq!(
        config["config"]["Entrypoint"],
        serde_json::json!(["/podmut", "serve"])
    );
    assert_eq!(config["config"]["Labels"], *annotations);

    // One gzip layer holding exactly the static binary, and the config's diff_id is its tar.
    let layers = manifest["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 1);
    assert_eq!(
        layers[0]["mediaType"],
        "application/vnd.oci.image.layer.v1.tar+gzip"
    );
    let scratch = scratch("dist-image-layer");
    let gz = scratch.join("layer.tar.gz");
    std::fs::write(&gz, blob(&layout, layers[0]["digest"].as_str().unwrap())).unwrap();
    let tar = run(Command::new("gzip").arg("-dc").arg(&gz)).stdout;
    assert_eq!(
        config["rootfs"]["diff_ids"],
        serde_json::json!([format!("sha256:{}", sha256_hex(&tar))])
    );
    let listing = run(Command::new("tar").args(["-tvzf"]).arg(&gz)).stdout;
    let listing = String::from_utf8(listing).unwrap();
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines.len(), 1, "only the binary: {listing}");
    assert!(
        lines[0].starts_with("-rwxr-xr-x") && lines[0].ends_with(" podmut"),
        "{listing}"
    );
    run(Command::new("tar").arg("-xzf").arg(&gz).arg("-C").arg(&scratch));
    assert!(
        std::fs::read(scratch.join("podmut")).unwrap() == std::fs::read(d.join("podmut")).unwrap(),
        "the layer holds the dist binary"
    );
}

#[test]
#[ignore = "needs PODMUT_DIST_DIR, a `cargo xtask dist` output; run with --ignored (cargo xtask ci does)"]
fn the_kubewarden_module_carries_its_metadata() {
    let d = dist();
    let module = std::fs::read(d.join("podmut-kubewarden.wasm")).unwrap();
    let mut found = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(&module) {
        if let wasmparser::Payload::CustomSection(c) = payload.unwrap()
            && c.name() == "io.kubewarden.metadata"
        {
            found.push(serde_json::from_slice::<Value>(c.data()).unwrap());
        }
    }
    assert_eq!(found.len(), 1, "exactly one metadata section");
    let m = &found[0];
    let source: Value = serde_yaml_ng::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../kubewarden/metadata.yml"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(m["rules"], source["rules"]);
    assert_eq!(m["protocolVersion"], "v1");
    assert_eq!(m["executionMode"], "kubewarden-wapc");
    assert_eq!(
        m["annotations"]["io.kubewarden.policy.version"],
        version_json(&d)["version"]
    );
    assert!(
        m["annotations"]["io.kubewarden.policy.usage"]
            .as_str()
            .unwrap()
            .contains("podmut")
    );

    let pkg: Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(d.join("artifacthub-pkg.yml")).unwrap()).unwrap();
    assert_eq!(pkg["version"], version_json(&d)["version"]);
    assert_eq!(pkg["containersImages"][0]["name"], "policy");
    for field in [
        "name",
        "displayName",
        "createdAt",
        "description",
        "license",
        "homeURL",
    ] {
        assert!(
            pkg[field].as_str().is_some_and(|s| !s.is_empty()),
            "{field}: {pkg:?}"
        );
    }
    assert_eq!(pkg["annotations"]["kubewarden/mutation"], "false");
}

#[test]
#[ignore = "needs PODMUT_DIST_DIR, a `cargo xtask dist` output; run with --ignored (cargo xtask ci does)"]
fn sha256sums_verify() {
    let d = dist();
    let out = run(Command::new("sha256sum")
        .arg("-c")
        .arg("SHA256SUMS")
        .current_dir(&d));
    let text = String::from_utf8(out.stdout).unwrap();
    let v = version_json(&d);
    for file in [
        "podmut".to_owned(),
        "podmut.wasm".to_owned(),
        "podmut.wasm.names".to_owned(),
        "podmut-kubewarden.wasm".to_owned(),
        "artifacthub-pkg.yml".to_owned(),
        "krew/podmut.yaml".to_owned(),
        format!(
            "podmut-{}-x86_64-unknown-linux-musl.tar.gz",
            v["version"].as_str().unwrap()
        ),
    ] {
        assert!(
            text.contains(&format!("{file}: OK")),
            "{file} not verified: {text}"
        );
    }
}

#[test]
#[ignore = "needs PODMUT_DIST_DIR, a `cargo xtask dist` output; run with --ignored (cargo xtask ci does)"]
fn the_archive_and_the_krew_manifest_fit_together() {
    let d = dist();
    let version = version_json(&d)["version"].as_str().unwrap().to_owned();
    let top = format!("podmut-{version}-x86_64-unknown-linux-musl");
    let archive = d.join(format!("{top}.tar.gz"));
    let listing = String::from_utf8(run(Command::new("tar").arg("-tzf").arg(&archive)).stdout).unwrap();
    for entry in [
        "podmut",
        "kubectl-podmut",
        "LICENSE",
        "README.md",
        "CHANGELOG.md",
        "docs/install.md",
        "docs/oracle.md",
        "completions/podmut.bash",
        "completions/_podmut",
        "completions/podmut.fish",
        "man/man1/podmut.1",
        "man/man1/podmut-check.1",
    ] {
        assert!(
            listing.lines().any(|l| l == format!("{top}/{entry}")),
            "{entry} missing: {listing}"
        );
    }
    let unpacked = scratch("dist-archive");
    run(Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .arg("-C")
        .arg(&unpacked));
    let plugin = unpacked.join(&top).join("kubectl-podmut");
    // As a kubectl plugin the same binary answers `version`.
    let v: Value =
        serde_json::from_slice(&run(Command::new(&plugin).args(["version", "-o", "json"])).stdout).unwrap();
    assert_eq!(v["version"], version);
    let license = std::fs::read_to_string(unpacked.join(&top).join("LICENSE")).unwrap();
    assert!(license.contains("Apache License") && license.contains("Version 2.0"));

    let krew: Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(d.join("krew/podmut.yaml")).unwrap()).unwrap();
    assert_eq!(
        krew["apiVersion"],
        "krew.googlecontainertools.github.com/v1alpha2"
    );
    assert_eq!(krew["kind"], "Plugin");
    assert_eq!(krew["metadata"]["name"], "podmut");
    assert_eq!(krew["spec"]["version"], format!("v{version}"));
    let platforms = krew["spec"]["platforms"].as_array().unwrap();
    assert_eq!(platforms.len(), 1);
    let p = &platforms[0];
    assert_eq!(p["selector"]["matchLabels"]["os"], "linux");
    assert_eq!(p["selector"]["matchLabels"]["arch"], "amd64");
    assert_eq!(p["bin"], "kubectl-podmut");
    assert_eq!(p["sha256"], sha256_hex(&std::fs::read(&archive).unwrap()));
    assert!(p["uri"].as_str().unwrap().ends_with(&format!("/{top}.tar.gz")));
    for file in p["files"].as_array().unwrap() {
        let from = file["from"].as_str().unwrap();
        assert!(
            unpacked.join(from).is_file(),
            "krew copies {from}, which the archive lacks"
        );
    }
}

/// Packaging the same inputs again gives the same files and the same image digest.
#[test]
#[ignore = "needs PODMUT_DIST_DIR and the packaging inputs cargo xtask ci gives; run with --ignored (cargo xtask ci does)"]
fn packaging_is_reproducible() {
    let d = dist();
    let given = |name: &str| {
        std::env::var_os(name).unwrap_or_else(|| {
            panic!("this test needs {name}, one of the packaging inputs cargo xtask ci gives")
        })
    };
    let (tool, module, epoch) = (
        given("PODMUT_RELEASE_TOOL"),
        given("PODMUT_KUBEWARDEN_WASM"),
        given("PODMUT_SOURCE_DATE_EPOCH"),
    );
    let again = scratch("dist-again").join("out");
    run(Command::new(tool)
        .arg("--podmut")
        .arg(d.join("podmut"))
        .arg("--kubewarden")
        .arg(module)
        .arg("--workspace")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .arg("--out")
        .arg(&again)
        .arg("--source-date-epoch")
        .arg(epoch));
    for file in [
        "SHA256SUMS",
        "image/index.json",
        "oci/component/index.json",
        "oci/kubewarden/index.json",
    ] {
        assert!(
            std::fs::read(d.join(file)).unwrap() == std::fs::read(again.join(file)).unwrap(),
            "{file} differs between two packagings of the same inputs"
        );
    }
}

// ---- the registry round trip ------------------------------------------------------------------

/// Kills the child on drop (a failing test must not leave a registry or a server running).
struct Guard(Child);

impl Guard {
    fn stop(&mut self) -> Output {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let mut out = Output {
            status: self.0.wait().unwrap(),
            stdout: Vec::new(),
            stderr: Vec::new(),
        };
        if let Some(mut e) = self.0.stderr.take() {
            std::io::Read::read_to_end(&mut e, &mut out.stderr).unwrap();
        }
        out
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_addr() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().to_string()
}

/// Start Debian's `docker-registry` (the CNCF distribution registry) on 127.0.0.1.
fn start_registry(registry: &Path, dir: &Path) -> (Guard, String) {
    let addr = free_addr();
    let config = dir.join("config.yml");
    std::fs::write(
        &config,
        format!(
            "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: {addr}\n",
            dir.join("data").display()
        ),
    )
    .unwrap();
    let child = Command::new(registry)
        .arg("serve")
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut guard = Guard(child);
    for _ in 0..200 {
        if std::net::TcpStream::connect(&addr).is_ok() {
            return (guard, addr);
        }
        if let Ok(Some(status)) = guard.0.try_wait() {
            panic!("docker-registry exited ({status})");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("docker-registry did not listen on {addr}");
}

/// Push each layout with skopeo (the README's command), pull it back into a new layout, and
/// compare: the same manifest digest, every blob byte-identical, and the wasm layers are the
/// shipped `.wasm` files.
#[test]
#[ignore = "needs PODMUT_DIST_DIR, docker-registry and skopeo; run with --ignored (cargo xtask ci does)"]
fn registry_round_trip_is_byte_identical() {
    let d = dist();
    let registry = crate::support::required_tool(
        "docker-registry",
        "apt-get install -y docker-registry (.ci/run installs it)",
    );
    let skopeo = crate::support::required_tool("skopeo", "apt-get install -y skopeo (.ci/run installs it)");
    let dir = scratch("dist-registry");
    let (mut server, addr) = start_registry(&registry, &dir);
    let component = std::fs::read(d.join("podmut.wasm")).unwrap();
    let kubewarden = std::fs::read(d.join("podmut-kubewarden.wasm")).unwrap();
    for (layout, repository, layer) in [
        ("image", "podmut", None),
        ("oci/component", "podmut-component", Some(&component)),
        ("oci/kubewarden", "policies/podmut", Some(&kubewarden)),
    ] {
        let layout = d.join(layout);
        let (manifest, tag, digest) = manifest(&layout);
        let remote = format!("docker://{addr}/{repository}:{tag}");
        run(Command::new(&skopeo)
            .args(["--insecure-policy", "copy", "--dest-tls-verify=false"])
            .arg(format!("oci:{}:{tag}", layout.display()))
            .arg(&remote));
        let raw = run(Command::new(&skopeo)
            .args(["--insecure-policy", "inspect", "--raw", "--tls-verify=false"])
            .arg(&remote))
        .stdout;
        assert_eq!(
            format!("sha256:{}", sha256_hex(&raw)),
            digest,
            "{repository}: the registry serves the manifest unchanged"
        );

        let pulled = dir.join(repository.replace('/', "-"));
        run(Command::new(&skopeo)
            .args(["--insecure-policy", "copy", "--src-tls-verify=false"])
            .arg(&remote)
            .arg(format!("oci:{}:{tag}", pulled.display())));
        let (pulled_manifest, pulled_tag, pulled_digest) = self::manifest(&pulled);
        assert_eq!(
            (pulled_tag.as_str(), pulled_digest.as_str()),
            (tag.as_str(), digest.as_str())
        );
        assert_eq!(pulled_manifest, manifest);
        let mut digests = vec![manifest["config"]["digest"].as_str().unwrap().to_owned()];
        digests.extend(
            manifest["layers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["digest"].as_str().unwrap().to_owned()),
        );
        for digest in &digests {
            assert!(
                blob(&pulled, digest) == blob(&layout, digest),
                "{repository}: blob {digest} changed"
            );
        }
        if let Some(wasm) = layer {
            let only = manifest["layers"][0]["digest"].as_str().unwrap();
            assert!(
                &blob(&pulled, only) == wasm,
                "{repository}: the pulled layer is the shipped .wasm"
            );
        }
    }
    server.stop();
}

#[test]
#[ignore = "needs PODMUT_DIST_DIR, a `cargo xtask dist` output; run with --ignored (cargo xtask ci does)"]
fn the_wasm_artefacts_use_the_media_types_policy_engines_fetch() {
    let d = dist();
    let (component, _, _) = manifest(&d.join("oci/component"));
    assert_eq!(
        component["config"]["mediaType"],
        "application/vnd.wasm.config.v0+json"
    );
    assert_eq!(component["layers"][0]["mediaType"], "application/wasm");
    let config: Value = serde_json::from_slice(&blob(
        &d.join("oci/component"),
        component["config"]["digest"].as_str().unwrap(),
    ))
    .unwrap();
    assert_eq!(config["architecture"], "wasm");
    assert_eq!(config["os"], "wasip2");
    assert_eq!(
        config["layerDigests"],
        serde_json::json!([component["layers"][0]["digest"]])
    );
    let exports: Vec<&str> = config["component"]["exports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    for wanted in [
        "podmut:policy/validate@0.1.0",
        "wasi:cli/run@",
        "wasi:http/incoming-handler@",
    ] {
        assert!(
            exports.iter().any(|e| e.starts_with(wanted)),
            "{wanted} not in {exports:?}"
        );
    }
    let (kubewarden, tag, _) = manifest(&d.join("oci/kubewarden"));
    assert!(tag.starts_with('v'), "{tag}");
    assert_eq!(
        kubewarden["config"]["mediaType"],
        "application/vnd.wasm.config.v1+json"
    );
    assert_eq!(
        kubewarden["layers"][0]["mediaType"],
        "application/vnd.wasm.content.layer.v1+wasm"
    );
}

/// Waits (up to 60 s) until the server has written the whole PEM file `path`, failing early if the
/// server exits.
fn wait_for_file(path: &std::path::Path, server: &mut std::process::Child) {
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(path)
        .is_ok_and(|pem| pem.trim_end().ends_with("-----END CERTIFICATE-----"))
    {
        if let Some(status) = server.try_wait().unwrap() {
            panic!("serve exited ({status}) before writing {}", path.display());
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "serve did not write {} within 60 s",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
