//! Reproducible tar and gzip: entries in the order given (callers sort), owner 0:0, fixed modes,
//! one timestamp (the commit's, `SOURCE_DATE_EPOCH`-style), gzip without a name or time stamp.

use std::io::Write as _;

use anyhow::{Context, Result};
use flate2::{Compression, GzBuilder};

/// One entry of an archive.
#[derive(Debug, Clone)]
pub(crate) enum Entry {
    /// A directory (`path/`).
    Dir(String),
    /// A file with its mode and bytes.
    File {
        /// Path inside the archive.
        path: String,
        /// Unix permission bits.
        mode: u32,
        /// Content.
        bytes: Vec<u8>,
    },
}

/// An uncompressed tar of `entries`, every one stamped `mtime`.
pub(crate) fn tar(entries: &[Entry], mtime: u64) -> Result<Vec<u8>> {
    let mut builder = tar::Builder::new(Vec::new());
    builder.mode(tar::HeaderMode::Deterministic);
    for entry in entries {
        let mut header = tar::Header::new_ustar();
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(mtime);
        match entry {
            Entry::Dir(path) => {
                header.set_entry_type(tar::EntryType::Directory);
                header.set_mode(0o755);
                header.set_size(0);
                builder
                    .append_data(&mut header, path, std::io::empty())
                    .with_context(|| format!("tar entry {path}"))?;
            }
            Entry::File { path, mode, bytes } => {
                header.set_entry_type(tar::EntryType::Regular);
                header.set_mode(*mode);
                header.set_size(bytes.len() as u64);
                builder
                    .append_data(&mut header, path, bytes.as_slice())
                    .with_context(|| format!("tar entry {path}"))?;
            }
        }
    }
    builder.into_inner().context("finishing the tar")
}

/// gzip (best compression, no file name, time stamp 0).
pub(crate) fn gzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut encoder = GzBuilder::new().mtime(0).write(Vec::new(), Compression::best());
    encoder.write_all(bytes).context("gzip")?;
    encoder.finish().context("gzip")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_entries_same_bytes_and_the_stamp_is_the_given_one() {
        let entries = vec![
            Entry::Dir("d/".into()),
            Entry::File {
                path: "d/x".into(),
                mode: 0o755,
                bytes: b"hello".to_vec(),
            },
        ];
        let a = gzip(&tar(&entries, 1_700_000_000).unwrap()).unwrap();
        let b = gzip(&tar(&entries, 1_700_000_000).unwrap()).unwrap();
        assert_eq!(a, b);
        let plain = tar(&entries, 1_700_000_000).unwrap();
        let mut archive = tar::Archive::new(plain.as_slice());
        let mut seen = Vec::new();
        for e in archive.entries().unwrap() {
            let e = e.unwrap();
            let h = e.header();
            seen.push((
                e.path().unwrap().display().to_string(),
                h.mode().unwrap(),
                h.mtime().unwrap(),
                h.uid().unwrap(),
            ));
        }
        assert_eq!(
            seen,
            [
                ("d/".to_owned(), 0o755, 1_700_000_000, 0),
                ("d/x".to_owned(), 0o755, 1_700_000_000, 0)
            ]
        );
        assert_ne!(a, gzip(&tar(&entries, 1).unwrap()).unwrap());
    }
}
