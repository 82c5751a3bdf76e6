//! The component and the Kubewarden module as OCI artefacts, laid out the way the tools policy
//! engines use publish them, so `skopeo copy oci:DIR:TAG docker://REGISTRY/NAME:TAG` (or `wkg oci
//! push` / `kwctl push` on the `.wasm`) gives a registry the same manifest:
//!
//! - the component as wasm-pkg-tools (`wkg oci push`) and the CNCF "Wasm OCI artifact" layout
//!   write it: config `application/vnd.wasm.config.v0+json` (`architecture: wasm`, `os: wasip2`,
//!   the layer digests and the component's imports and exports), one `application/wasm` layer;
//! - the Kubewarden policy as `kwctl push` (policy-fetcher) writes it: config
//!   `application/vnd.wasm.config.v1+json` holding `{}`, one
//!   `application/vnd.wasm.content.layer.v1+wasm` layer.

use std::path::Path;

use anyhow::{Context, Result};
use oci_spec::image::{ImageManifestBuilder, MediaType};
use serde::Serialize;

use crate::Release;
use crate::layout::{Layout, sha256_hex};

/// wasm-pkg-tools' config media type.
pub(crate) const WASM_CONFIG_V0: &str = "application/vnd.wasm.config.v0+json";
/// wasm-pkg-tools' layer media type.
pub(crate) const WASM_LAYER: &str = "application/wasm";
/// Kubewarden's (oci-distribution's) config media type.
pub(crate) const KUBEWARDEN_CONFIG: &str = "application/vnd.wasm.config.v1+json";
/// Kubewarden's (oci-distribution's) layer media type.
pub(crate) const KUBEWARDEN_LAYER: &str = "application/vnd.wasm.content.layer.v1+wasm";

/// The `component` object of the wasm config.
#[derive(Debug, Serialize)]
struct ComponentInfo {
    exports: Vec<String>,
    imports: Vec<String>,
}

/// The wasm config (`application/vnd.wasm.config.v0+json`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct WasmConfig {
    created: String,
    author: String,
    architecture: &'static str,
    os: &'static str,
    layer_digests: Vec<String>,
    component: ComponentInfo,
}

/// Write the component artefact layout into `dir`, tagged with the version.
pub(crate) fn component(release: &Release, component: &[u8], dir: &Path) -> Result<()> {
    let (imports, exports) = component_interface(component)?;
    let layout = Layout::create(dir)?;
    let layer = layout.blob(MediaType::Other(WASM_LAYER.into()), component)?;
    let config = WasmConfig {
        created: release.created()?,
        author: "The podmut developers".into(),
        architecture: "wasm",
        os: "wasip2",
        layer_digests: vec![format!("sha256:{}", sha256_hex(component))],
        component: ComponentInfo { exports, imports },
    };
    let config = layout.json_blob(MediaType::Other(WASM_CONFIG_V0.into()), &config)?;
    let manifest = ImageManifestBuilder::default()
        .schema_version(2_u32)
        .media_type(MediaType::ImageManifest)
        .config(config)
        .layers(vec![layer])
        .annotations(release.annotations())
        .build()
        .context("component manifest")?;
    let manifest = layout.json_blob(MediaType::ImageManifest, &manifest)?;
    layout.finish(&manifest, &release.version, None)?;
    Ok(())
}

/// Write the Kubewarden artefact layout (the annotated module) into `dir`, tagged `v<version>`
/// (Kubewarden's policy tags carry the `v`).
pub(crate) fn kubewarden(release: &Release, module: &[u8], dir: &Path) -> Result<()> {
    let layout = Layout::create(dir)?;
    let layer = layout.blob(MediaType::Other(KUBEWARDEN_LAYER.into()), module)?;
    let config = layout.blob(MediaType::Other(KUBEWARDEN_CONFIG.into()), b"{}")?;
    let manifest = ImageManifestBuilder::default()
        .schema_version(2_u32)
        .media_type(MediaType::ImageManifest)
        .config(config)
        .layers(vec![layer])
        .build()
        .context("Kubewarden manifest")?;
    let manifest = layout.json_blob(MediaType::ImageManifest, &manifest)?;
    layout.finish(&manifest, &format!("v{}", release.version), None)?;
    Ok(())
}

/// The component's top-level import and export names (`wasi:cli/stdin@0.2.x`,
/// `podmut:policy/validate@0.1.0`, ...), sorted.
fn component_interface(component: &[u8]) -> Result<(Vec<String>, Vec<String>)> {
    use wasmparser::{Parser, Payload};
    let mut imports = Vec::new();
    let mut exports = Vec::new();
    let mut depth = 0_usize;
    for payload in Parser::new(0).parse_all(component) {
        match payload.context("the component does not parse")? {
            Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => depth += 1,
            Payload::End(_) => depth = depth.saturating_sub(1),
            Payload::ComponentImportSection(section) if depth == 0 => {
                for import in section {
                    imports.push(import.context("component import")?.name.name.to_owned());
                }
            }
            Payload::ComponentExportSection(section) if depth == 0 => {
                for export in section {
                    exports.push(export.context("component export")?.name.name.to_owned());
                }
            }
            _ => {}
        }
    }
    imports.sort();
    exports.sort();
    Ok((imports, exports))
}
