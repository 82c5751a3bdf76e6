//! The krew plugin manifest (`kind: Plugin`, `krew.googlecontainertools.github.com/v1alpha2`) for
//! `kubectl podmut`: one linux/amd64 platform, the release archive's URL and sha256, the binary
//! `kubectl-podmut` inside it.

use anyhow::{Context, Result};
use serde_json::json;

use crate::Release;

/// The manifest, for an archive at `uri` with digest `sha256`, whose top directory is `top`.
pub(crate) fn manifest(release: &Release, uri: &str, sha256: &str, top: &str) -> Result<String> {
    let plugin = json!({
        "apiVersion": "krew.googlecontainertools.github.com/v1alpha2",
        "kind": "Plugin",
        "metadata": {"name": "podmut"},
        "spec": {
            "version": format!("v{}", release.version),
            "homepage": release.repository,
            "shortDescription": "Judge Pod changes (dynamic containers, resize, probes) like the API server",
            "description": "podmut checks a Pod change before the API server or the kubelet sees it: is it legal on\n\
                pods, pods/dynamic (KEP-5972), pods/ephemeralcontainers or pods/resize, what QoS class results,\n\
                can the node allocate it, what will the kubelet do to the probes. Every answer comes from the\n\
                podmut WebAssembly component embedded in the plugin.\n",
            "caveats": "Try: kubectl podmut check --old pod.yaml --new changed.yaml --subresource dynamic\n",
            "platforms": [{
                "selector": {"matchLabels": {"os": "linux", "arch": "amd64"}},
                "uri": uri,
                "sha256": sha256,
                "files": [
                    {"from": format!("{top}/kubectl-podmut"), "to": "."},
                    {"from": format!("{top}/LICENSE"), "to": "."}
                ],
                "bin": "kubectl-podmut"
            }]
        }
    });
    let yaml = serde_yaml_ng::to_string(&plugin).context("krew manifest")?;
    Ok(format!(
        "# krew plugin manifest for podmut {} (written by `cargo xtask dist`).\n{yaml}",
        release.version
    ))
}
