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
///
/// Two artefacts of the rendering are read as what they are: a line that only gains or loses its
/// trailing comma because an item was appended or removed after it is unchanged
/// ([`comma_only`]), and the host namespace fields the internal `PodSpec` keeps under
/// `SecurityContext` are named at the spec's top level, where the v1 Pod has them
/// ([`INTERNAL_HOST_FIELDS`]).
pub fn changed_paths(report: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = report.lines().collect();
    let unchanged = comma_only(&lines);
    // (marker, path, line) of each changed line.
    let mut changed: Vec<(char, Vec<String>, &str)> = Vec::new();
    let mut hunk: Vec<(char, usize, Option<String>, bool)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("@@") {
            hunk.clear();
            continue;
        }
        let mut chars = line.chars();
        let Some(mut marker) = chars.next() else { continue };
        if !matches!(marker, ' ' | '-' | '+') {
            continue;
        }
        match unchanged.get(i) {
            Some(Some('-')) => continue,
            Some(Some('+')) => marker = ' ',
            _ => {}
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
            changed.push((marker, v1_path(path), body.trim_end_matches(',')));
        }
        hunk.push((marker, depth, key, opens));
    }
    let mut out: Vec<Vec<String>> = Vec::new();
    for (i, (marker, path, body)) in changed.iter().enumerate() {
        // A line removed and added again unchanged under the same path was moved by the diff's
        // alignment, not changed (`"ReadinessProbe": null` after a probe before it changed).
        let moved = !body.ends_with('{')
            && !body.ends_with('[')
            && changed
                .iter()
                .enumerate()
                .any(|(j, (m, p, b))| j != i && m != marker && p == path && b == body);
        if !moved && !path.is_empty() && !out.contains(path) {
            out.push(path.clone());
        }
    }
    out
}

/// `diff` with each hunk's ancestors in `old` added as context lines after its header.
///
/// A hunk starts three lines before its first change, often inside a list item whose list the
/// hunk does not show (an item appended to `Ports`). `old` is the old value rendered as
/// `diff.Diff` renders it (`json.MarshalIndent(v, "", " ")`); the lines that open the objects and
/// lists around the hunk's first line are read from it — but only where the hunk's old side has
/// the shape of `old` there (the same keys at the same depths, opening and closing alike), so a
/// rendering that is off changes nothing.
pub fn place_hunks(diff: &str, old: &str) -> String {
    let old_lines: Vec<&str> = old.lines().collect();
    let lines: Vec<&str> = diff.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        out.push((*line).to_owned());
        let Some(start) = hunk_old_start(line) else {
            continue;
        };
        let end = (i + 1..lines.len())
            .find(|&j| lines[j].starts_with("@@"))
            .unwrap_or(lines.len());
        let old_side: Vec<&str> = lines[i + 1..end]
            .iter()
            .filter(|l| l.starts_with(' ') || l.starts_with('-'))
            .map(|l| &l[1..])
            .collect();
        let Some(there) = start
            .checked_sub(1)
            .and_then(|s| old_lines.get(s..s + old_side.len()))
        else {
            continue;
        };
        if !old_side.is_empty() && old_side.iter().zip(there).all(|(a, b)| same_shape(a, b)) {
            out.extend(open_ancestors(&old_lines[..start - 1]).map(|a| format!(" {a}")));
        }
    }
    let mut text = out.join("\n");
    if diff.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// The old side's first line of a hunk header `@@ -a,b +c,d @@` (1-based), when it has lines.
fn hunk_old_start(line: &str) -> Option<usize> {
    let range = line.strip_prefix("@@ -")?.split(' ').next()?;
    let (start, len) = range.split_once(',').unwrap_or((range, "1"));
    (len != "0").then(|| start.parse().ok()).flatten()
}

/// Whether two lines of indented JSON have the same depth, key and kind (opening, closing or a
/// value), whatever their values.
fn same_shape(a: &str, b: &str) -> bool {
    let shape = |l: &str| {
        let body = l.trim_start_matches(' ');
        let t = body.trim_end_matches(',');
        (
            l.len() - body.len(),
            json_key(body),
            t.ends_with('{') || t.ends_with('['),
            t.starts_with('}') || t.starts_with(']'),
        )
    };
    shape(a) == shape(b)
}

/// The lines of `before` that open an object or a list still open after its last line.
fn open_ancestors<'a>(before: &[&'a str]) -> impl Iterator<Item = &'a str> {
    let mut stack: Vec<&'a str> = Vec::new();
    for line in before {
        let body = line.trim();
        if body.starts_with('}') || body.starts_with(']') {
            stack.pop();
        }
        if body.ends_with('{') || body.ends_with('[') {
            stack.push(line);
        }
    }
    stack.into_iter()
}

/// For each line, whether it is one half of a comma-only change: in a block of changed lines, the
/// first removed and the first added line at the same depth that differ only by a trailing comma
/// (`-  "a": 1` / `+  "a": 1,` when `"b"` is appended after `"a"`). The removed half is marked
/// `-` (skipped), the added half `+` (read as context).
fn comma_only(lines: &[&str]) -> Vec<Option<char>> {
    let mut marks = vec![None; lines.len()];
    let changed = |l: &str| l.starts_with('-') || l.starts_with('+');
    let mut i = 0;
    while i < lines.len() {
        if !changed(lines[i]) {
            i += 1;
            continue;
        }
        let end = (i..lines.len())
            .find(|&j| !changed(lines[j]))
            .unwrap_or(lines.len());
        let first = |m: char| (i..end).find(|&j| lines[j].starts_with(m));
        if let (Some(r), Some(a)) = (first('-'), first('+')) {
            let (old, new) = (&lines[r][1..], &lines[a][1..]);
            if old != new && old.trim_end_matches(',') == new.trim_end_matches(',') {
                marks[r] = Some('-');
                marks[a] = Some('+');
            }
        }
        i = end;
    }
    marks
}

/// The fields the internal `PodSpec` keeps in its `SecurityContext` (`core.PodSecurityContext`)
/// and the v1 `PodSpec` at its top level.
const INTERNAL_HOST_FIELDS: [&str; 5] = [
    "hostnetwork",
    "hostpid",
    "hostipc",
    "shareprocessnamespace",
    "hostusers",
];

/// A diff path in the v1 layout: `securitycontext.hostnetwork` is `hostnetwork`.
fn v1_path(mut path: Vec<String>) -> Vec<String> {
    if path.len() >= 2 && path[0] == "securitycontext" && INTERNAL_HOST_FIELDS.contains(&path[1].as_str()) {
        path.remove(0);
    }
    path
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

    const SELECTOR: &str = "@@ -40,7 +40,8 @@\n  \"ActiveDeadlineSeconds\": null,\n  \"NodeSelector\": {\n-  \"foo\": \"bar\"\n+  \"foo\": \"bar\",\n+  \"foo2\": \"bar2\"\n  },\n  \"ServiceAccountName\": \"default\",\n";

    const HOST: &str = "@@ -44,7 +44,7 @@\n  \"NodeName\": \"\",\n  \"SecurityContext\": {\n-  \"HostNetwork\": false,\n+  \"HostNetwork\": true,\n   \"HostPID\": false,\n";

    #[test]
    fn a_trailing_comma_is_no_change() {
        assert_eq!(changed_paths(SELECTOR), paths(&[&["nodeselector", "foo2"]]));
        assert!(same_changes(
            &podmut_paths("spec.nodeSelector.foo2"),
            &changed_paths(SELECTOR)
        ));
        assert!(!same_changes(
            &podmut_paths("spec.nodeSelector.foo"),
            &changed_paths(SELECTOR)
        ));
    }

    #[test]
    fn host_namespaces_are_read_at_the_top_level() {
        assert_eq!(changed_paths(HOST), paths(&[&["hostnetwork"]]));
        assert!(same_changes(
            &podmut_paths("spec.hostNetwork"),
            &changed_paths(HOST)
        ));
    }

    /// An item appended to a list: the hunk starts inside the previous item.
    const PORT_ADDED: &str = concat!(
        "@@ -5,7 +5,11 @@\n",
        "     {\n",
        "      \"ContainerPort\": 80,\n",
        "      \"Protocol\": \"TCP\"\n",
        "-    }\n",
        "+    },\n",
        "+    {\n",
        "+     \"ContainerPort\": 8080,\n",
        "+     \"Protocol\": \"TCP\"\n",
        "+    }\n",
        "    ],\n",
        "    \"Image\": \"i\"\n",
        "   }\n",
    );

    /// The old value as `json.MarshalIndent(v, "", " ")` renders it.
    const PORT_OLD: &str = concat!(
        "{\n",
        " \"Containers\": [\n",
        "  {\n",
        "   \"Ports\": [\n",
        "    {\n",
        "     \"ContainerPort\": 80,\n",
        "     \"Protocol\": \"TCP\"\n",
        "    }\n",
        "   ],\n",
        "   \"Image\": \"i\"\n",
        "  }\n",
        " ]\n",
        "}",
    );

    #[test]
    fn a_hunk_inside_a_list_item_is_placed_from_the_old_rendering() {
        assert!(!same_changes(
            &podmut_paths("spec.containers[0].ports[1]"),
            &changed_paths(PORT_ADDED)
        ));
        let placed = place_hunks(PORT_ADDED, PORT_OLD);
        assert!(
            placed.starts_with("@@ -5,7 +5,11 @@\n {\n  \"Containers\": [\n   {\n    \"Ports\": [\n     {\n      \"ContainerPort"),
            "{placed}"
        );
        assert!(same_changes(
            &podmut_paths("spec.containers[0].ports[1]"),
            &changed_paths(&placed)
        ));
        assert!(!same_changes(
            &podmut_paths("spec.containers[0].volumeMounts[1]"),
            &changed_paths(&placed)
        ));
        // A rendering of another shape places nothing.
        let other = PORT_OLD.replace("\"Protocol\"", "\"Name\"");
        assert_eq!(place_hunks(PORT_ADDED, &other), PORT_ADDED);
    }

    /// A probe added before an unchanged null one: the diff removes and adds `ReadinessProbe`.
    const MOVED: &str = concat!(
        "@@ -1,6 +1,9 @@\n",
        "   \"VolumeDevices\": null,\n",
        "-  \"LivenessProbe\": null,\n",
        "-  \"ReadinessProbe\": null,\n",
        "+  \"LivenessProbe\": {\n",
        "+   \"PeriodSeconds\": 10\n",
        "+  },\n",
        "+  \"ReadinessProbe\": null,\n",
        "   \"Lifecycle\": null,\n",
    );

    #[test]
    fn a_line_the_diff_moves_is_no_change() {
        assert_eq!(
            changed_paths(MOVED),
            paths(&[&["livenessprobe"], &["livenessprobe", "periodseconds"]])
        );
    }

    #[test]
    fn map_keys_in_brackets_are_segments() {
        assert_eq!(
            podmut_paths("spec.nodeSelector[kubernetes.io/os]"),
            paths(&[&["nodeselector", "kubernetes.io/os"]])
        );
    }
}
