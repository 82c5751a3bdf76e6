//! Splitting a stream into documents as apimachinery's `YAMLReader` does (`util/yaml`).
//!
//! Lines are read as `bufio.Reader.ReadLine` reads them (a `\r\n` ending counts as `\n`). A line
//! that starts with `---` ends the document being read; it may be followed only by blanks or a
//! `#` comment. When no document is being read, the `---` line starts the next one instead.

/// One document's text (lines ending in `\n`) and the number of lines before it in the stream.
#[derive(Debug)]
pub(super) struct Chunk {
    /// The document's text.
    pub(super) text: String,
    /// Lines of the stream before the document's first line.
    pub(super) first_line: usize,
}

/// The documents of `text`, or the line (1-based) and message of a bad `---` line.
pub(super) fn split(text: &str) -> Result<Vec<Chunk>, (usize, String)> {
    let mut chunks = Vec::new();
    let mut buffer = String::new();
    let mut first_line = 0;
    for (number, line) in lines(text).enumerate() {
        if let Some(rest) = line.strip_prefix("---") {
            let trimmed = rest.trim();
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                return Err((number + 1, format!("invalid YAML document separator: {trimmed}")));
            }
            if !buffer.is_empty() {
                chunks.push(Chunk {
                    text: std::mem::take(&mut buffer),
                    first_line,
                });
                continue;
            }
        }
        if buffer.is_empty() {
            first_line = number;
        }
        buffer.push_str(line);
        buffer.push('\n');
    }
    if !buffer.is_empty() {
        chunks.push(Chunk {
            text: buffer,
            first_line,
        });
    }
    Ok(chunks)
}

/// The lines of `text` without their ending (`\n` or `\r\n`), as `bufio.Reader.ReadLine` gives
/// them: a final line without `\n` is a line too, an empty text has none.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut parts = (!text.is_empty()).then(|| body.split('\n'));
    let last = body.matches('\n').count();
    let mut n = 0;
    std::iter::from_fn(move || {
        let line = parts.as_mut()?.next()?;
        let ended = n < last || text.ends_with('\n');
        n += 1;
        Some(if ended {
            line.strip_suffix('\r').unwrap_or(line)
        } else {
            line
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<(String, usize)> {
        split(s)
            .unwrap()
            .into_iter()
            .map(|c| (c.text, c.first_line))
            .collect()
    }

    #[test]
    fn documents_split_like_yaml_reader() {
        assert_eq!(texts(""), []);
        assert_eq!(texts("a: 1"), [("a: 1\n".to_owned(), 0)]);
        assert_eq!(
            texts("---\na: 1\n---\nb: 2\r\n--- # c\n"),
            [("---\na: 1\n".to_owned(), 0), ("b: 2\n".to_owned(), 3)]
        );
        // `---` with nothing read yet starts the next document.
        assert_eq!(
            texts("---\n---\nx\n"),
            [("---\n".to_owned(), 0), ("x\n".to_owned(), 2)]
        );
        assert_eq!(texts("a\r"), [("a\r\n".to_owned(), 0)]);
        assert_eq!(
            split("a: 1\n--- b\n").unwrap_err(),
            (2, "invalid YAML document separator: b".to_owned())
        );
        assert!(split("a: 1\n---b\n").is_err());
    }
}
