//! `check` on many files at once, the way `kubectl apply -f` takes them: several `--new` (and
//! `--old`) files, directories (`-R`: their subdirectories too). Every object is judged on its own
//! (paired with its old object by namespace/name across all the files), with a line per object and
//! a summary.

use std::path::PathBuf;

use super::{CheckArgs, Job, Request, items_output, judge, key, one, patch_jobs, patch_text};
use crate::cli::Failure;
use crate::cli::inputs::{ReadFile, display, object_name, read_file};
use crate::runtime::Runtime;
use crate::types::DocumentKind;

/// Whether the inputs are more than one file (several, or a directory).
pub(super) fn is_many(a: &CheckArgs) -> bool {
    a.new.len() > 1 || a.old.len() > 1 || a.new.iter().chain(&a.old).any(|p| p.is_dir())
}

/// Judge every object of the files; the exit code is the worst item's (2 > 1 > 0), as with
/// several Pods in one file.
pub(super) fn run(
    a: &CheckArgs,
    runtime: &Runtime,
    settings: &str,
    settings_source: &str,
) -> Result<u8, Failure> {
    let olds = read_all(runtime, a, &a.old, "--old", "old-pod")?;
    let jobs: Vec<(Job, String, String)> = if a.new.is_empty() {
        let (patch, patch_name) = patch_text(a)?;
        let mut jobs = Vec::new();
        for old in &olds {
            for j in patch_jobs(runtime, a, old, &patch, &patch_name)? {
                jobs.push((j, old.file.clone(), old.file.clone()));
            }
        }
        jobs
    } else {
        let news = read_all(runtime, a, &a.new, "--new", "new-pod")?;
        pair_many(&olds, &news, a.old.is_empty())
    };
    let mut results = Vec::with_capacity(jobs.len());
    let mut files = Vec::with_capacity(jobs.len());
    for (job, old_file, new_file) in jobs {
        let names = [
            ("old-pod", old_file),
            ("new-pod", new_file.clone()),
            ("settings", settings_source.to_owned()),
        ];
        let request = Request {
            sub: a.subresource,
            settings,
            files: &names,
            single: false,
        };
        let outcome = judge(runtime, &job, &request, None)?;
        results.push((job, outcome));
        files.push(new_file);
    }
    let show_new = a.show_new && (a.patch.is_some() || a.patch_file.is_some());
    items_output(a.output, &results, show_new, Some(&files));
    Ok(results.iter().map(|(_, o)| o.exit_code()).max().unwrap_or(0))
}

/// Every file of `paths` (directories as their manifest files) read through the component.
fn read_all(
    runtime: &Runtime,
    a: &CheckArgs,
    paths: &[PathBuf],
    flag: &str,
    input: &str,
) -> Result<Vec<ReadFile>, Failure> {
    crate::cli::batch::files(paths, a.recursive)?
        .iter()
        .map(|p| {
            let mut f = read_file(runtime, p, flag, input, DocumentKind::Pod, a.validate)?;
            f.file = display(p, flag);
            Ok(f)
        })
        .collect()
}

/// Pair every new object with the old object of the same namespace/name in any old file; the
/// unpaired on either side are reported (new objects only when there are old ones). Each job
/// comes with its old and new file names.
fn pair_many(olds: &[ReadFile], news: &[ReadFile], creates: bool) -> Vec<(Job, String, String)> {
    let mut jobs = Vec::new();
    let mut used: Vec<Vec<bool>> = olds.iter().map(|f| vec![false; f.docs.len()]).collect();
    for nf in news {
        for d in &nf.docs {
            if creates {
                jobs.push((one(d, None, nf, None), String::new(), nf.file.clone()));
                continue;
            }
            let k = key(d);
            let found = k.as_ref().and_then(|k| {
                olds.iter().enumerate().find_map(|(fi, of)| {
                    of.docs
                        .iter()
                        .enumerate()
                        .find(|(oi, o)| !used[fi][*oi] && key(o).as_ref() == Some(k))
                        .map(|(oi, o)| (fi, oi, o))
                })
            });
            match found {
                Some((fi, oi, o)) => {
                    used[fi][oi] = true;
                    let job = one(d, Some((o, &olds[fi])), nf, None);
                    jobs.push((job, olds[fi].file.clone(), nf.file.clone()));
                }
                None => {
                    let why = if d.name.is_empty() {
                        format!(
                            "{}: Pod {} has no metadata.name to pair it by",
                            nf.file,
                            object_name(d)
                        )
                    } else {
                        format!(
                            "{}: Pod {} has no old Pod in --old to pair with",
                            nf.file,
                            object_name(d)
                        )
                    };
                    jobs.push((one(d, None, nf, Some(why)), String::new(), nf.file.clone()));
                }
            }
        }
    }
    for (fi, of) in olds.iter().enumerate() {
        for (oi, o) in of.docs.iter().enumerate() {
            if !used[fi][oi] && !creates {
                let why = format!(
                    "{}: Pod {} has no new Pod in --new to pair with",
                    of.file,
                    object_name(o)
                );
                jobs.push((one(o, None, of, Some(why)), of.file.clone(), of.file.clone()));
            }
        }
    }
    jobs
}
