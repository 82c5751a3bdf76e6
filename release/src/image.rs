//! The container image: one layer holding only the static binary at `/podmut`, run as the
//! numeric non-root user 65532, entrypoint `/podmut serve`, linux/amd64, with the
//! `org.opencontainers.image.*` annotations on the manifest and as config labels.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result};
use oci_spec::image::{
    Arch, ConfigBuilder, HistoryBuilder, ImageConfigurationBuilder, ImageManifestBuilder, MediaType, Os,
    PlatformBuilder, RootFsBuilder,
};

use crate::Release;
use crate::archive::{Entry, gzip, tar};
use crate::layout::{Layout, sha256_hex};

/// The user the image runs as (distroless' `nonroot`), numeric so no /etc/passwd is needed.
pub(crate) const USER: &str = "65532:65532";

/// Write the image layout for `release` into `dir`, tagged with the version.
pub(crate) fn write(release: &Release, binary: &[u8], dir: &Path) -> Result<()> {
    let layer_tar = tar(
        &[Entry::File {
            path: "podmut".into(),
            mode: 0o755,
            bytes: binary.to_vec(),
        }],
        release.epoch,
    )?;
    let diff_id = format!("sha256:{}", sha256_hex(&layer_tar));
    let layer = gzip(&layer_tar)?;
    let labels = release.annotations();
    let created = release.created()?;

    let config = ImageConfigurationBuilder::default()
        .created(created.clone())
        .architecture(Arch::Amd64)
        .os(Os::Linux)
        .config(
            ConfigBuilder::default()
                .user(USER)
                .entrypoint(vec!["/podmut".to_owned(), "serve".to_owned()])
                .exposed_ports(vec!["8443/tcp".to_owned()])
                .working_dir("/")
                .stop_signal("SIGTERM")
                .labels(labels.clone())
                .build()
                .context("image config")?,
        )
        .rootfs(
            RootFsBuilder::default()
                .typ("layers")
                .diff_ids(vec![diff_id])
                .build()
                .context("rootfs")?,
        )
        .history(vec![
            HistoryBuilder::default()
                .created(created)
                .created_by("cargo xtask dist: the static podmut binary at /podmut")
                .build()
                .context("history")?,
        ])
        .build()
        .context("image configuration")?;

    let layout = Layout::create(dir)?;
    let layer = layout.blob(MediaType::ImageLayerGzip, &layer)?;
    let config = layout.json_blob(MediaType::ImageConfig, &config)?;
    let manifest = ImageManifestBuilder::default()
        .schema_version(2_u32)
        .media_type(MediaType::ImageManifest)
        .config(config)
        .layers(vec![layer])
        .annotations(labels)
        .build()
        .context("image manifest")?;
    let manifest = layout.json_blob(MediaType::ImageManifest, &manifest)?;
    let platform = PlatformBuilder::default()
        .architecture(Arch::Amd64)
        .os(Os::Linux)
        .build()
        .context("platform")?;
    layout.finish(&manifest, &release.version, Some(platform))?;
    Ok(())
}

impl Release {
    /// The `org.opencontainers.image.*` annotations.
    pub(crate) fn annotations(&self) -> HashMap<String, String> {
        let created = self.created().unwrap_or_default();
        [
            ("title", "podmut".to_owned()),
            (
                "description",
                "podmut: Kubernetes' rules for mutable Pods as a WebAssembly component; the HTTPS admission webhook".to_owned(),
            ),
            ("source", self.repository.clone()),
            ("url", self.repository.clone()),
            ("documentation", format!("{}#readme", self.repository)),
            ("version", self.version.clone()),
            ("revision", self.git_commit.clone()),
            ("licenses", self.license.clone()),
            ("vendor", "The podmut developers".to_owned()),
            ("created", created),
        ]
        .into_iter()
        .map(|(k, v)| (format!("org.opencontainers.image.{k}"), v))
        .collect()
    }
}
