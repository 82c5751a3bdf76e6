//! The results as JUnit XML, the report CI systems read (GitLab, Jenkins, GitHub Actions'
//! reporters): one `<testsuite>` per suite, one `<testcase>` per case, `<failure>` for a case
//! whose answer differs from its expectation or from the server's, `<error>` for one that could
//! not be judged. Written by hand: five elements and their escaping do not need an XML library.

use std::fmt::Write as _;

use super::CaseResult;

/// The JUnit XML document of `results`.
pub(crate) fn render(results: &[CaseResult]) -> String {
    let mut suites: Vec<(&str, &str, Vec<&CaseResult>)> = Vec::new();
    for r in results {
        match suites
            .iter_mut()
            .find(|(name, file, _)| *name == r.suite && *file == r.file)
        {
            Some((_, _, cases)) => cases.push(r),
            None => suites.push((&r.suite, &r.file, vec![r])),
        }
    }
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"podmut test\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" time=\"{:.3}\">",
        results.len(),
        results
            .iter()
            .filter(|r| r.error.is_none() && !r.passed())
            .count(),
        results.iter().filter(|r| r.error.is_some()).count(),
        results.iter().map(|r| r.seconds).sum::<f64>(),
    );
    for (name, file, cases) in suites {
        suite(&mut xml, name, file, &cases);
    }
    xml.push_str("</testsuites>\n");
    xml
}

fn suite(xml: &mut String, name: &str, file: &str, cases: &[&CaseResult]) {
    let _ = writeln!(
        xml,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" time=\"{:.3}\" file=\"{}\">",
        escape(name),
        cases.len(),
        cases.iter().filter(|r| r.error.is_none() && !r.passed()).count(),
        cases.iter().filter(|r| r.error.is_some()).count(),
        cases.iter().map(|r| r.seconds).sum::<f64>(),
        escape(file),
    );
    for r in cases {
        let _ = write!(
            xml,
            "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\" time=\"{:.3}\"",
            escape(&r.name),
            escape(name),
            escape(file),
            r.seconds
        );
        let lines = r.problems();
        match (&r.error, lines.first()) {
            (Some(e), _) => {
                let _ = writeln!(
                    xml,
                    ">\n      <error message=\"{}\" type=\"error\">{}</error>\n    </testcase>",
                    escape(e),
                    escape(e)
                );
            }
            (None, Some(first)) => {
                let _ = writeln!(
                    xml,
                    ">\n      <failure message=\"{}\" type=\"mismatch\">{}</failure>\n    </testcase>",
                    escape(first),
                    escape(&lines.join("\n"))
                );
            }
            (None, None) => xml.push_str("/>\n"),
        }
    }
    xml.push_str("  </testsuite>\n");
}

/// Text as XML character data or an attribute value. Characters XML 1.0 cannot hold at all
/// (control characters other than tab and newline) become U+FFFD.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            '\r' => out.push_str("&#13;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_control_characters_are_escaped() {
        assert_eq!(escape("a<b>&\"c\"\u{1}"), "a&lt;b&gt;&amp;&quot;c&quot;\u{FFFD}");
    }
}
