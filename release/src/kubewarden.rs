//! The Kubewarden policy: the waPC module annotated the way `kwctl annotate -m metadata.yml -u
//! README.md` annotates it, and the `artifacthub-pkg.yml` Artifact Hub's Kubewarden repositories
//! read (the fields `kwctl scaffold artifacthub` writes from the same metadata).
//!
//! The annotation is written here rather than by kwctl: kwctl is not packaged for this machine's
//! registries, and what it does is small and documented: the metadata as JSON in a custom section
//! named `io.kubewarden.metadata` (replacing any earlier one), the README as the
//! `io.kubewarden.policy.usage` annotation.

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::Value;
use wasm_encoder::{CustomSection, RawSection, Section as _};

use crate::Release;

/// The custom section policy-evaluator reads the metadata from.
pub(crate) const METADATA_SECTION: &str = "io.kubewarden.metadata";

/// `module` with `metadata` (metadata.yml's contents) and `usage` (the README) as its
/// `io.kubewarden.metadata` section; the metadata's `io.kubewarden.policy.version` must be the
/// release version.
pub(crate) fn annotate(module: &[u8], metadata: &Value, usage: &str, version: &str) -> Result<Vec<u8>> {
    let mut metadata = metadata.clone();
    let annotations = metadata
        .get_mut("annotations")
        .and_then(Value::as_object_mut)
        .context("metadata.yml: annotations: required")?;
    let declared = annotations
        .get("io.kubewarden.policy.version")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if declared != version {
        bail!(
            "metadata.yml: annotations.io.kubewarden.policy.version is {declared:?}, the release is {version}"
        );
    }
    annotations.insert(
        "io.kubewarden.policy.usage".into(),
        Value::String(usage.to_owned()),
    );
    let payload = serde_json::to_vec(&metadata).context("metadata as JSON")?;

    let mut out = strip_section(module, METADATA_SECTION)?;
    CustomSection {
        name: METADATA_SECTION.into(),
        data: payload.into(),
    }
    .append_to(&mut out);
    Ok(out)
}

/// The module without any custom section named `name`.
fn strip_section(module: &[u8], name: &str) -> Result<Vec<u8>> {
    use wasmparser::{Parser, Payload};
    let mut out = module.get(..8).context("not a wasm module")?.to_vec();
    for payload in Parser::new(0).parse_all(module) {
        let payload = payload.context("the Kubewarden module does not parse")?;
        if let Some((id, range)) = payload.as_section() {
            let keep = !matches!(&payload, Payload::CustomSection(c) if c.name() == name);
            if keep {
                RawSection {
                    id,
                    data: &module[range],
                }
                .append_to(&mut out);
            }
        }
    }
    Ok(out)
}

/// `artifacthub-pkg.yml` (Artifact Hub's package metadata, the Kubewarden flavour).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactHubPkg {
    version: String,
    name: String,
    display_name: String,
    created_at: String,
    description: String,
    license: String,
    #[serde(rename = "homeURL")]
    home_url: String,
    containers_images: Vec<Named>,
    keywords: Vec<String>,
    links: Vec<Link>,
    install: String,
    maintainers: Vec<Named>,
    provider: Provider,
    recommendations: Vec<Recommendation>,
    annotations: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Serialize)]
struct Named {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    image: Option<String>,
}

#[derive(Debug, Serialize)]
struct Link {
    name: String,
    url: String,
}

#[derive(Debug, Serialize)]
struct Provider {
    name: String,
}

#[derive(Debug, Serialize)]
struct Recommendation {
    url: String,
}

/// The Artifact Hub package for `metadata` (metadata.yml), published at the image `oci_url`.
pub(crate) fn artifacthub(release: &Release, metadata: &Value) -> Result<String> {
    let annotation = |key: &str| -> Result<String> {
        metadata["annotations"][key]
            .as_str()
            .map(str::to_owned)
            .with_context(|| format!("metadata.yml: annotations.{key}: required by artifacthub-pkg.yml"))
    };
    let oci_url = annotation("io.kubewarden.policy.ociUrl")?;
    let source = annotation("io.kubewarden.policy.source")?;
    let tag = format!("v{}", release.version);
    let rules = serde_yaml_ng::to_string(&metadata["rules"]).context("metadata.yml: rules")?;
    let mut annotations = std::collections::BTreeMap::new();
    annotations.insert(
        "kubewarden/mutation".into(),
        metadata["mutating"].as_bool().unwrap_or(false).to_string(),
    );
    annotations.insert("kubewarden/contextAwareResources".into(), "[]".into());
    annotations.insert(
        "kubewarden/resources".into(),
        annotation("io.artifacthub.resources")?,
    );
    annotations.insert("kubewarden/rules".into(), rules);
    let pkg = ArtifactHubPkg {
        version: release.version.clone(),
        name: annotation("io.kubewarden.policy.title")?,
        display_name: annotation("io.artifacthub.displayName")?,
        created_at: release.created()?,
        description: annotation("io.kubewarden.policy.description")?,
        license: annotation("io.kubewarden.policy.license")?,
        home_url: annotation("io.kubewarden.policy.url")?,
        containers_images: vec![Named {
            name: "policy".into(),
            image: Some(format!("{oci_url}:{tag}")),
        }],
        keywords: annotation("io.artifacthub.keywords")?
            .split(',')
            .map(|k| k.trim().to_owned())
            .filter(|k| !k.is_empty())
            .collect(),
        links: vec![
            Link {
                name: "policy".into(),
                url: format!("{source}/releases/download/{tag}/podmut-kubewarden.wasm"),
            },
            Link {
                name: "source".into(),
                url: source,
            },
        ],
        install: format!(
            "The policy is published at `{oci_url}:{tag}`:\n\n```console\nkwctl pull registry://{oci_url}:{tag}\n```\n"
        ),
        maintainers: vec![Named {
            name: annotation("io.kubewarden.policy.author")?,
            image: None,
        }],
        provider: Provider {
            name: "kubewarden".into(),
        },
        recommendations: vec![Recommendation {
            url: "https://artifacthub.io/packages/helm/kubewarden/kubewarden-controller".into(),
        }],
        annotations,
    };
    let yaml = serde_yaml_ng::to_string(&pkg).context("artifacthub-pkg.yml")?;
    Ok(format!(
        "# Kubewarden Artifact Hub package of podmut {} (written by `cargo xtask dist` from kubewarden/metadata.yml).\n{yaml}",
        release.version
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal module: header, one custom section `a`, one `io.kubewarden.metadata`.
    fn module() -> Vec<u8> {
        let mut m = b"\0asm\x01\0\0\0".to_vec();
        for (name, data) in [("a", &b"x"[..]), (METADATA_SECTION, &b"{}"[..])] {
            CustomSection {
                name: name.into(),
                data: data.into(),
            }
            .append_to(&mut m);
        }
        m
    }

    fn sections(m: &[u8]) -> Vec<(String, Vec<u8>)> {
        wasmparser::Parser::new(0)
            .parse_all(m)
            .filter_map(|p| match p.unwrap() {
                wasmparser::Payload::CustomSection(c) => Some((c.name().to_owned(), c.data().to_vec())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn annotating_replaces_the_metadata_section_and_keeps_the_rest() {
        let metadata = serde_json::json!({
            "protocolVersion": "v1",
            "annotations": {"io.kubewarden.policy.version": "1.2.3"}
        });
        let out = annotate(&module(), &metadata, "# usage", "1.2.3").unwrap();
        let s = sections(&out);
        assert_eq!(s.len(), 2, "{s:?}");
        assert_eq!(s[0], ("a".to_owned(), b"x".to_vec()));
        assert_eq!(s[1].0, METADATA_SECTION);
        let written: Value = serde_json::from_slice(&s[1].1).unwrap();
        assert_eq!(written["protocolVersion"], "v1");
        assert_eq!(written["annotations"]["io.kubewarden.policy.usage"], "# usage");
        // Annotating twice gives the same module.
        assert_eq!(annotate(&out, &metadata, "# usage", "1.2.3").unwrap(), out);
        let err = annotate(&module(), &metadata, "", "9.9.9").unwrap_err();
        assert!(err.to_string().contains("9.9.9"), "{err}");
    }
}
