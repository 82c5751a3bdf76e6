//! The fields a Go struct diff names.
//!
//! Where upstream refuses a change wholesale ("pod updates may not change fields other than ...",
//! "existing ephemeral containers ... may not be changed"), its message ends in
//! `k8s.io/apimachinery/pkg/util/diff.Diff(old, new)`: a unified diff (3 lines of context) of the
//! two *internal* Go values rendered by `json.MarshalIndent` with Go field names. podmut lists the
//! changed paths after `changed:` instead, so the oracle compares what the two name: each
//! changed line's path, as far as the hunk's context shows its ancestors, against podmut's paths.

/// The changed paths of a unified diff of indented JSON, each as lower-case keys from the
/// outermost ancestor the hunk shows down to the changed key; array elements add no segment.
pub fn changed_paths(report: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut hunk: Vec<(char, usize, Option<String>, bool)> = Vec::new();
    for line in report.lines() {
        if line.starts_with("@@") {
            hunk.clear();
            continue;
        }
        let mut chars = line.chars();
        let Some(marker) = chars.next() else { continue };
        if !matches!(marker, ' ' | '-' | '+') {
            continue;
        }
        let content = chars.as_str();
        let depth = content.len() - content.trim_start_matches(' ').len();
        let body = content.trim();
        let key = json_key(body);
        let opens = body.ends_with('{') || body.ends_with('[');
        if marker != ' ' && !body.is_empty() && !matches!(body, "}" | "}," | "]" | "],") {
            let mut path: Vec<String> = key.iter().map(|k| k.to_lowercase()).collect();
            let mut want = depth;
            let other = if marker == '-' { '+' } else { '-' };
            for (m, d, k, o) in hunk.iter().rev() {
                // Ancestors are on the changed line's own side: context and lines of its marker.
                if *m == other || *d >= want || !o {
                    continue;
                }
                want = *d;
                if let Some(k) = k {
                    path.insert(0, k.to_lowercase());
                }
            }
            if !path.is_empty() && !out.contains(&path) {
                out.push(path);
            }
        }
        hunk.push((marker, depth, key, opens));
    }
    out
}

/// The key of a `"Key": value` line of indented JSON.
fn json_key(body: &str) -> Option<String> {
    let rest = body.strip_prefix('"')?;
    let end = rest.find("\":")?;
    Some(rest[..end].to_owned())
}

/// podmut's `changed:` paths (`spec.containers[0].livenessProbe`, `spec.nodeSelector[a.b/c]`) as
/// lower-case segments, list indices dropped, map keys kept, a leading `spec` dropped (the
/// diffed value is the spec itself).
pub fn podmut_paths(listed: &str) -> Vec<Vec<String>> {
    listed
        .split(", ")
        .map(|p| {
            let mut segs = Vec::new();
            let mut cur = String::new();
            let mut chars = p.chars();
            while let Some(c) = chars.next() {
                match c {
                    '.' => segs.push(std::mem::take(&mut cur)),
                    '[' => {
                        segs.push(std::mem::take(&mut cur));
                        let key: String = chars.by_ref().take_while(|c| *c != ']').collect();
                        if !key.chars().all(|c| c.is_ascii_digit()) {
                            segs.push(key);
                        }
                    }
                    c => cur.push(c),
                }
            }
            segs.push(cur);
            let mut segs: Vec<String> = segs
                .into_iter()
                .filter(|s| !s.is_empty())
                .map(|s| s.to_lowercase())
                .collect();
            if segs.first().is_some_and(|f| f == "spec") {
                segs.remove(0);
            }
            segs
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// Whether podmut's path `p` and a diff's partial path `s` name the same change: `p` ends with
/// `s` (podmut as deep or deeper), or with a leading part of `s` (podmut names an ancestor of
/// what the diff shows changing).
fn related(p: &[String], s: &[String]) -> bool {
    (1..=s.len()).any(|k| p.ends_with(&s[..k]))
}

/// Whether the two lists name the same changes: every path of each is related to some path of
/// the other.
pub fn same_changes(podmut: &[Vec<String>], server: &[Vec<String>]) -> bool {
    !podmut.is_empty()
        && !server.is_empty()
        && podmut.iter().all(|p| server.iter().any(|s| related(p, s)))
        && server.iter().all(|s| podmut.iter().any(|p| related(p, s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(list: &[&[&str]]) -> Vec<Vec<String>> {
        list.iter()
            .map(|p| p.iter().map(|s| (*s).to_owned()).collect())
            .collect()
    }

    const COMMAND: &str = "@@ -6,7 +6,7 @@\n    \"Name\": \"app\",\n    \"Image\": \"nginx:1.25\",\n    \"Command\": [\n-    \"nginx\"\n+    \"sh\"\n    ],\n    \"Args\": null,\n    \"WorkingDir\": \"\",\n";

    const PROBE: &str = "@@ -133,7 +133,21 @@\n     }\n    ],\n    \"VolumeDevices\": null,\n-   \"LivenessProbe\": null,\n+   \"LivenessProbe\": {\n+    \"Exec\": null,\n+    \"PeriodSeconds\": 10\n+   },\n    \"ReadinessProbe\": {\n     \"Exec\": null,\n     \"HTTPGet\": {\n@@ -147,7 +161,7 @@\n     \"GRPC\": null,\n     \"InitialDelaySeconds\": 0,\n     \"TimeoutSeconds\": 1,\n-    \"PeriodSeconds\": 10,\n+    \"PeriodSeconds\": 5,\n     \"SuccessThreshold\": 1,\n";

    const CPU: &str = "@@ -14,7 +14,7 @@\n    \"Resources\": {\n     \"Limits\": null,\n     \"Requests\": {\n-     \"cpu\": \"100m\"\n+     \"cpu\": \"200m\"\n     },\n     \"Claims\": null\n    },\n";

    #[test]
    fn a_list_element_change_names_the_list() {
        assert_eq!(changed_paths(COMMAND), paths(&[&["command"]]));
        assert!(same_changes(
            &podmut_paths("spec.containers[0].command[0]"),
            &changed_paths(COMMAND)
        ));
        assert!(!same_changes(
            &podmut_paths("spec.containers[0].args[0]"),
            &changed_paths(COMMAND)
        ));
    }

    #[test]
    fn a_map_key_under_its_ancestors() {
        assert_eq!(changed_paths(CPU), paths(&[&["resources", "requests", "cpu"]]));
        assert!(same_changes(
            &podmut_paths("spec.containers[0].resources.requests.cpu"),
            &changed_paths(CPU)
        ));
        assert!(same_changes(
            &podmut_paths("spec.containers[0].resources.requests[cpu]"),
            &changed_paths(CPU)
        ));
        assert!(!same_changes(
            &podmut_paths("spec.containers[0].resources.limits.cpu"),
            &changed_paths(CPU)
        ));
    }

    #[test]
    fn hunks_and_ancestors_are_read_from_context() {
        let got = changed_paths(PROBE);
        assert_eq!(
            got,
            paths(&[
                &["livenessprobe"],
                &["livenessprobe", "exec"],
                &["livenessprobe", "periodseconds"],
                &["periodseconds"]
            ])
        );
        let podmut =
            podmut_paths("spec.containers[0].livenessProbe, spec.containers[0].readinessProbe.periodSeconds");
        assert!(same_changes(&podmut, &got));
        assert!(!same_changes(
            &podmut_paths("spec.containers[0].livenessProbe"),
            &got
        ));
    }

    #[test]
    fn map_keys_in_brackets_are_segments() {
        assert_eq!(
            podmut_paths("spec.nodeSelector[kubernetes.io/os]"),
            paths(&[&["nodeselector", "kubernetes.io/os"]])
        );
    }
}
