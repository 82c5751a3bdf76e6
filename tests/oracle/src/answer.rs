//! Answers in one shape, the server's and podmut's, and how they are compared.
//!
//! An answer is the verdict, the causes (type, field, message — the API server's
//! `status.details.causes`, podmut's `errors`), the top-level message and the warnings. Two
//! answers agree on an aspect when:
//! - **verdict**: both allow, or both refuse;
//! - **type-field**: the multisets of (type, field) are equal;
//! - **message**: the multisets of (type, field, message) are equal, and so are the top-level
//!   messages, where a message ending in a Go struct diff (the server) and one ending in
//!   `changed: ...` (podmut) are equal when their first lines are and they name the same fields
//!   ([`crate::godiff`]);
//! - **warnings**: the same warnings, in any order.

use serde_json::Value;

use crate::api::Reply;
use crate::godiff;

/// One cause of a refusal.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cause {
    /// The cause type (`FieldValueInvalid`).
    pub kind: String,
    /// The field path (`spec.containers[0].image`).
    pub field: String,
    /// The message (`Invalid value: ...`).
    pub message: String,
}

/// A verdict on one change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// Whether the change is allowed.
    pub allowed: bool,
    /// The top-level message of a refusal (`Pod "web" is invalid: ...`), empty when allowed.
    pub message: String,
    /// The causes.
    pub causes: Vec<Cause>,
    /// The warnings.
    pub warnings: Vec<String>,
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or_default().to_owned()
}

impl Answer {
    /// The server's answer to a write.
    pub fn from_server(reply: &Reply) -> Self {
        let causes = reply
            .body
            .pointer("/details/causes")
            .and_then(Value::as_array)
            .map(|cs| {
                cs.iter()
                    .map(|c| Cause {
                        kind: text(c, "reason"),
                        field: text(c, "field"),
                        message: text(c, "message"),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let allowed = reply.ok();
        Self {
            allowed,
            message: if allowed {
                String::new()
            } else {
                text(&reply.body, "message")
            },
            causes: if allowed { Vec::new() } else { causes },
            warnings: reply.warnings.clone(),
        }
    }

    /// podmut's answer: the `check -o json` object (`allowed`, `errors[{type, field, message}]`,
    /// `message`, `warnings`).
    pub fn from_podmut(v: &Value) -> Self {
        let causes = v
            .get("errors")
            .and_then(Value::as_array)
            .map(|es| {
                es.iter()
                    .map(|e| Cause {
                        kind: text(e, "type"),
                        field: text(e, "field"),
                        message: text(e, "message"),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let warnings = v
            .get("warnings")
            .and_then(Value::as_array)
            .map(|ws| ws.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        Self {
            allowed: v.get("allowed").and_then(Value::as_bool).unwrap_or(false),
            message: text(v, "message"),
            causes,
            warnings,
        }
    }
}

/// How two answers compare, aspect by aspect.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Agreement {
    /// Same verdict.
    pub verdict: bool,
    /// Same multiset of (type, field).
    pub type_field: bool,
    /// Same messages.
    pub message: bool,
    /// Same warnings.
    pub warnings: bool,
}

impl Agreement {
    /// Agreement on verdict, (type, field) and messages (what the oracle requires).
    pub fn full(self) -> bool {
        self.verdict && self.type_field && self.message
    }
}

/// Compare podmut's answer with the server's.
pub fn compare(podmut: &Answer, server: &Answer) -> Agreement {
    let pairs = |a: &Answer| {
        let mut v: Vec<(String, String)> = a
            .causes
            .iter()
            .map(|c| (c.kind.clone(), c.field.clone()))
            .collect();
        v.sort();
        v
    };
    let type_field = pairs(podmut) == pairs(server);
    let message = type_field
        && causes_match(&podmut.causes, &server.causes)
        && (top_match(&podmut.message, &server.message) || map_ordered(podmut, server));
    let mut pw = podmut.warnings.clone();
    let mut sw = server.warnings.clone();
    pw.sort();
    sw.sort();
    Agreement {
        verdict: podmut.allowed == server.allowed,
        type_field,
        message,
        warnings: pw == sw,
    }
}

/// Each podmut cause matched to a distinct server cause of the same (type, field) and message.
fn causes_match(podmut: &[Cause], server: &[Cause]) -> bool {
    let mut unused: Vec<&Cause> = server.iter().collect();
    podmut.iter().all(|p| {
        let found = unused
            .iter()
            .position(|s| s.kind == p.kind && s.field == p.field && message_match(&p.message, &s.message));
        found.map(|i| unused.remove(i)).is_some()
    }) && unused.is_empty()
}

/// Two messages are equal, or are the same refusal with the changed fields listed in their own
/// ways (podmut `changed: ...`, the server a Go struct diff).
pub fn message_match(podmut: &str, server: &str) -> bool {
    if podmut == server {
        return true;
    }
    let (Some((p_head, p_tail)), Some((s_head, s_tail))) = (podmut.split_once('\n'), server.split_once('\n'))
    else {
        return false;
    };
    if p_head != s_head {
        return false;
    }
    let Some(listed) = p_tail.trim_start().strip_prefix("changed: ") else {
        return false;
    };
    godiff::same_changes(
        &godiff::podmut_paths(listed.lines().next().unwrap_or(listed)),
        &godiff::changed_paths(s_tail),
    )
}

/// The top-level messages: equal, or (when a cause carries a diff) equal on the first line — the
/// causes themselves are compared one by one.
fn top_match(podmut: &str, server: &str) -> bool {
    if podmut == server {
        return true;
    }
    match (podmut.split_once('\n'), server.split_once('\n')) {
        (Some((p, _)), Some((s, _))) => p == s,
        _ => false,
    }
}

/// Whether the two refusals differ only in the order of errors upstream produces by ranging over
/// a Go map, whose order Go randomises (a `ResourceList`: `ValidateResourceRequirements` and
/// `ValidatePodResourceConsistency` range over requests and limits): the causes are the same,
/// grouped by list in the same order, each list's errors in either order, and each top-level
/// message is exactly its distinct causes joined as `ToAggregate` joins them.
fn map_ordered(podmut: &Answer, server: &Answer) -> bool {
    // Every map key in the path (`[cpu]`, not `[0]`) as `[*]`: errors that differ only there
    // come from one map's range, and so do errors of the map itself.
    let list = |c: &Cause| {
        let mut key = String::with_capacity(c.field.len());
        let mut rest = c.field.as_str();
        while let Some(open) = rest.find('[') {
            let Some(close) = rest[open..].find(']') else {
                break;
            };
            let inner = &rest[open + 1..open + close];
            key.push_str(&rest[..open]);
            if inner.bytes().all(|b| b.is_ascii_digit()) {
                key.push_str(&rest[open..=open + close]);
            } else {
                key.push_str("[*]");
            }
            rest = &rest[open + close + 1..];
        }
        key.push_str(rest);
        // A trailing map key names an entry of the list itself (`requests[cpu]`, `requests`).
        match key.strip_suffix("[*]") {
            Some(list) => list.to_owned(),
            None => key,
        }
    };
    let groups = |causes: &[Cause]| {
        let mut out: Vec<(String, Vec<Cause>)> = Vec::new();
        for c in causes {
            match out.last_mut() {
                Some((key, members)) if *key == list(c) => members.push(c.clone()),
                _ => out.push((list(c), vec![c.clone()])),
            }
        }
        out
    };
    let (pg, sg) = (groups(&podmut.causes), groups(&server.causes));
    let same_groups = pg.len() == sg.len()
        && pg
            .iter()
            .zip(&sg)
            .all(|((pk, pm), (sk, sm))| pk == sk && causes_match(pm, sm));
    // `ErrorList.ToAggregate` joins each distinct message once, in the order of first occurrence.
    let aggregate = |a: &Answer| {
        let mut texts: Vec<String> = Vec::new();
        for c in &a.causes {
            let text = match c.field.as_str() {
                "" => c.message.clone(),
                f => format!("{f}: {}", c.message),
            };
            if !texts.contains(&text) {
                texts.push(text);
            }
        }
        let joined = match texts.as_slice() {
            [one] => one.clone(),
            many => format!("[{}]", many.join(", ")),
        };
        a.message.strip_suffix(&joined).map(str::to_owned)
    };
    podmut.causes.len() > 1
        && same_groups
        && aggregate(podmut).is_some_and(|p| aggregate(server).is_some_and(|s| p == s))
}

/// A readable account of two answers that disagree.
pub fn report(podmut: &Answer, server: &Answer, agreement: Agreement) -> String {
    let mut s = String::new();
    let aspects: Vec<&str> = [
        (!agreement.verdict, "verdict"),
        (!agreement.type_field, "(type, field)"),
        (!agreement.message, "message"),
        (!agreement.warnings, "warnings"),
    ]
    .iter()
    .filter(|(bad, _)| *bad)
    .map(|(_, name)| *name)
    .collect();
    s.push_str(&format!("disagree on {}\n", aspects.join(", ")));
    for (who, a) in [("podmut", podmut), ("server", server)] {
        s.push_str(&format!(
            "  {who}: {}\n",
            if a.allowed { "allowed" } else { "denied" }
        ));
        if !a.message.is_empty() {
            s.push_str(&format!("    message: {}\n", a.message.replace('\n', "\n      ")));
        }
        for c in &a.causes {
            s.push_str(&format!(
                "    - {} {}: {}\n",
                c.kind,
                c.field,
                c.message.replace('\n', "\n      ")
            ));
        }
        for w in &a.warnings {
            s.push_str(&format!("    warning: {w}\n"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(causes: &[(&str, &str)]) -> Answer {
        let causes: Vec<Cause> = causes
            .iter()
            .map(|(f, m)| Cause {
                kind: "FieldValueInvalid".into(),
                field: (*f).into(),
                message: (*m).into(),
            })
            .collect();
        let texts: Vec<String> = causes
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect();
        Answer {
            allowed: false,
            message: format!("Pod \"p\" is invalid: [{}]", texts.join(", ")),
            causes,
            warnings: Vec::new(),
        }
    }

    #[test]
    fn errors_of_one_go_map_may_come_in_either_order_and_nothing_else_may() {
        let (cpu, mem) = (
            ("spec.resources.requests[cpu]", "a"),
            ("spec.resources.requests[memory]", "b"),
        );
        let other = ("spec.containers[0].image", "c");
        assert!(compare(&refusal(&[cpu, mem, other]), &refusal(&[mem, cpu, other])).message);
        let same = ("spec.containers[0].resources.requests", "x");
        let same2 = ("spec.containers[0].resources.requests", "y");
        assert!(compare(&refusal(&[same, same2]), &refusal(&[same2, same])).message);
        // A map key inside the path (`ValidatePodResourceConsistency` ranges over limits).
        let (lc, lm) = (
            ("spec.resources.containers[0][cpu].limits", "d"),
            ("spec.resources.containers[0][memory].limits", "e"),
        );
        assert!(compare(&refusal(&[lc, lm, other]), &refusal(&[lm, lc, other])).message);
        // Errors of different fields keep their order.
        assert!(!compare(&refusal(&[cpu, other]), &refusal(&[other, cpu])).message);
        // Causes repeated (ObjectMeta validated more than once) with the message joining each
        // distinct one once, as `ToAggregate` does.
        let (bad, long) = (
            ("metadata.labels", "Invalid value: \"-x\""),
            ("metadata.labels", "too long"),
        );
        let deduped = |order: &[(&str, &str)]| {
            let mut a = refusal(order);
            a.causes.extend(refusal(order).causes);
            a
        };
        assert!(compare(&deduped(&[bad, long]), &deduped(&[long, bad])).message);
        // A top-level message that is not its causes joined is compared as it is.
        let mut odd = refusal(&[mem, cpu]);
        odd.message.push('!');
        assert!(!compare(&refusal(&[cpu, mem]), &odd).message);
    }

    fn answer(allowed: bool, causes: &[(&str, &str, &str)]) -> Answer {
        Answer {
            allowed,
            message: String::new(),
            causes: causes
                .iter()
                .map(|(k, f, m)| Cause {
                    kind: (*k).into(),
                    field: (*f).into(),
                    message: (*m).into(),
                })
                .collect(),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn aspects_are_told_apart() {
        let a = answer(false, &[("FieldValueInvalid", "spec.x", "Invalid value: 1")]);
        let b = answer(false, &[("FieldValueInvalid", "spec.x", "Invalid value: 2")]);
        let c = answer(false, &[("FieldValueRequired", "spec.x", "Required value")]);
        let ok = answer(true, &[]);
        assert!(compare(&a, &a).full());
        let ab = compare(&a, &b);
        assert!(ab.verdict && ab.type_field && !ab.message);
        let ac = compare(&a, &c);
        assert!(ac.verdict && !ac.type_field && !ac.message);
        assert!(!compare(&a, &ok).verdict);
    }

    #[test]
    fn duplicates_count() {
        let one = answer(false, &[("FieldValueInvalid", "spec.x", "m")]);
        let two = answer(
            false,
            &[
                ("FieldValueInvalid", "spec.x", "m"),
                ("FieldValueInvalid", "spec.x", "m"),
            ],
        );
        assert!(!compare(&one, &two).type_field);
    }

    #[test]
    fn a_diff_matches_a_changed_list() {
        let head = "Forbidden: pod updates may not change fields other than `spec.containers[*].image`";
        let podmut = format!("{head}\n  changed: spec.dnsPolicy");
        let server = format!(
            "{head}\n@@ -1,3 +1,3 @@\n  \"Hostname\": \"\",\n- \"DNSPolicy\": \"ClusterFirst\",\n+ \"DNSPolicy\": \"Default\",\n"
        );
        assert!(message_match(&podmut, &server));
        let wrong = format!("{head}\n  changed: spec.hostname");
        assert!(!message_match(&wrong, &server));
        assert!(!message_match("other\n  changed: spec.dnsPolicy", &server));
    }
}
