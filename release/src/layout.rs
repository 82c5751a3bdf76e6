//! An OCI image layout on disk (`oci-layout`, `index.json`, `blobs/sha256/<hex>`), written
//! reproducibly: every JSON document goes through `serde_json::Value`, whose maps are sorted, so
//! the same inputs give the same bytes and digests (oci-spec keeps labels and annotations in
//! `HashMap`s, whose order changes from run to run).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use oci_spec::image::{
    Descriptor, DescriptorBuilder, ImageIndexBuilder, MediaType, OciLayoutBuilder, Platform,
};
use serde::Serialize;
use sha2::{Digest as _, Sha256};

/// The annotation naming a manifest's tag in `index.json` (`oci:DIR:TAG` in skopeo).
pub(crate) const REF_NAME: &str = "org.opencontainers.image.ref.name";

/// Hex SHA-256.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Canonical JSON: sorted keys, no insignificant whitespace.
pub(crate) fn canonical_json(value: &impl Serialize) -> Result<Vec<u8>> {
    let value = serde_json::to_value(value).context("cannot encode JSON")?;
    serde_json::to_vec(&value).context("cannot encode JSON")
}

/// A layout being written.
#[derive(Debug)]
pub(crate) struct Layout {
    dir: PathBuf,
}

impl Layout {
    /// Start a layout in `dir` (created; must not exist yet or be empty).
    pub(crate) fn create(dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(dir.join("blobs").join("sha256"))
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(Self {
            dir: dir.to_path_buf(),
        })
    }

    /// Store a blob; its descriptor.
    pub(crate) fn blob(&self, media_type: MediaType, bytes: &[u8]) -> Result<Descriptor> {
        let hex = sha256_hex(bytes);
        let path = self.dir.join("blobs").join("sha256").join(&hex);
        std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
        let digest: oci_spec::image::Digest = format!("sha256:{hex}").parse().context("a SHA-256 digest")?;
        Ok(Descriptor::new(media_type, bytes.len() as u64, digest))
    }

    /// Store a JSON document as a blob.
    pub(crate) fn json_blob(&self, media_type: MediaType, value: &impl Serialize) -> Result<Descriptor> {
        self.blob(media_type, &canonical_json(value)?)
    }

    /// Write `oci-layout` and `index.json` naming `manifest` as `tag`.
    pub(crate) fn finish(
        self,
        manifest: &Descriptor,
        tag: &str,
        platform: Option<Platform>,
    ) -> Result<Descriptor> {
        let mut entry = DescriptorBuilder::default()
            .media_type(manifest.media_type().clone())
            .digest(manifest.digest().clone())
            .size(manifest.size())
            .annotations(HashMap::from([(REF_NAME.to_owned(), tag.to_owned())]));
        if let Some(p) = platform {
            entry = entry.platform(p);
        }
        let entry = entry.build().context("index entry")?;
        let index = ImageIndexBuilder::default()
            .schema_version(2_u32)
            .media_type(MediaType::ImageIndex)
            .manifests(vec![entry.clone()])
            .build()
            .context("index.json")?;
        std::fs::write(self.dir.join("index.json"), canonical_json(&index)?)
            .context("cannot write index.json")?;
        let header = OciLayoutBuilder::default()
            .image_layout_version("1.0.0")
            .build()
            .context("oci-layout")?;
        std::fs::write(self.dir.join("oci-layout"), canonical_json(&header)?)
            .context("cannot write oci-layout")?;
        Ok(entry)
    }
}
