//! Go's `encoding/json` `Unmarshal`, as far as a rule reports its errors: the syntax check
//! (`checkValid`, `scanner.go`) with the scanner's exact messages, and the decoding of the
//! `scheduler.alpha.kubernetes.io/tolerations` annotation into `[]core.Toleration` with
//! `UnmarshalTypeError`'s messages (the first error wins; object keys match field names
//! case-insensitively; unknown keys are ignored).

use k8s_openapi::api::core::v1::Toleration;
use serde_json::Value;

/// The scanner's error for `text`, when it is not one JSON value.
pub(crate) fn syntax_error(text: &str) -> Option<String> {
    let mut s = Scanner {
        b: text.as_bytes(),
        i: 0,
    };
    s.value().and_then(|()| s.end()).err()
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

type Scan = Result<(), String>;

const EOF: &str = "unexpected end of JSON input";

impl Scanner<'_> {
    fn ws(&mut self) {
        while self
            .b
            .get(self.i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.i += 1;
        }
    }

    /// The next byte (consumed), or the end-of-input error.
    fn next(&mut self) -> Result<u8, String> {
        let c = *self.b.get(self.i).ok_or(EOF)?;
        self.i += 1;
        Ok(c)
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn value(&mut self) -> Scan {
        self.ws();
        match self.next()? {
            b'{' => self.object(),
            b'[' => self.array(),
            b'"' => self.string(),
            b'-' => match self.next()? {
                c @ b'0'..=b'9' => self.number(c),
                c => Err(invalid(c, "in numeric literal")),
            },
            c @ b'0'..=b'9' => self.number(c),
            b't' => self.literal("rue", "true"),
            b'f' => self.literal("alse", "false"),
            b'n' => self.literal("ull", "null"),
            c => Err(invalid(c, "looking for beginning of value")),
        }
    }

    fn literal(&mut self, rest: &str, word: &str) -> Scan {
        for want in rest.bytes() {
            let c = self.next()?;
            if c != want {
                return Err(invalid(
                    c,
                    &format!("in literal {word} (expecting {})", quote_char(want)),
                ));
            }
        }
        Ok(())
    }

    fn object(&mut self) -> Scan {
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(());
        }
        loop {
            match self.next()? {
                b'"' => self.string()?,
                c => return Err(invalid(c, "looking for beginning of object key string")),
            }
            self.ws();
            match self.next()? {
                b':' => {}
                c => return Err(invalid(c, "after object key")),
            }
            self.value()?;
            self.ws();
            match self.next()? {
                b',' => self.ws(),
                b'}' => return Ok(()),
                c => return Err(invalid(c, "after object key:value pair")),
            }
        }
    }

    fn array(&mut self) -> Scan {
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.value()?;
            self.ws();
            match self.next()? {
                b',' => {}
                b']' => return Ok(()),
                c => return Err(invalid(c, "after array element")),
            }
        }
    }

    fn string(&mut self) -> Scan {
        loop {
            match self.next()? {
                b'"' => return Ok(()),
                b'\\' => match self.next()? {
                    b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => {}
                    b'u' => {
                        for _ in 0..4 {
                            let c = self.next()?;
                            if !c.is_ascii_hexdigit() {
                                return Err(invalid(c, "in \\u hexadecimal character escape"));
                            }
                        }
                    }
                    c => return Err(invalid(c, "in string escape code")),
                },
                c if c < 0x20 => return Err(invalid(c, "in string literal")),
                _ => {}
            }
        }
    }

    /// A number whose first digit `first` is consumed; it ends at the first byte that cannot
    /// continue it (judged by the caller).
    fn number(&mut self, first: u8) -> Scan {
        if first != b'0' {
            self.digits();
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            match self.next()? {
                b'0'..=b'9' => self.digits(),
                c => return Err(invalid(c, "after decimal point in numeric literal")),
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            let mut c = self.next()?;
            if matches!(c, b'+' | b'-') {
                c = self.next()?;
            }
            if !c.is_ascii_digit() {
                return Err(invalid(c, "in exponent of numeric literal"));
            }
            self.digits();
        }
        Ok(())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
    }

    fn end(&mut self) -> Scan {
        self.ws();
        match self.peek() {
            None => Ok(()),
            Some(c) => Err(invalid(c, "after top-level value")),
        }
    }
}

/// `"invalid character " + quoteChar(c) + " " + context`.
fn invalid(c: u8, context: &str) -> String {
    format!("invalid character {} {context}", quote_char(c))
}

/// `quoteChar`: the byte as a Go-quoted rune between single quotes.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => "'\\''".to_owned(),
        b'"' => "'\"'".to_owned(),
        _ => {
            let q = crate::gojson::go_quote(&char::from(c).to_string());
            format!("'{}'", &q[1..q.len() - 1])
        }
    }
}

/// The JSON kind `UnmarshalTypeError` names.
fn kind(v: &Value) -> String {
    match v {
        Value::Object(_) => "object".into(),
        Value::Array(_) => "array".into(),
        Value::String(_) => "string".into(),
        Value::Number(_) => "number".into(),
        Value::Bool(_) => "bool".into(),
        Value::Null => "null".into(),
    }
}

/// `json.Unmarshal(text, &[]core.Toleration)`: the tolerations, or Go's error text.
pub fn tolerations(text: &str) -> Result<Vec<Toleration>, String> {
    if let Some(e) = syntax_error(text) {
        return Err(e);
    }
    let doc: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let mut first_error: Option<String> = None;
    let mut fail = |e: String| {
        first_error.get_or_insert(e);
    };
    let mut out = Vec::new();
    match &doc {
        Value::Null => {}
        Value::Array(items) => {
            for item in items {
                match item {
                    Value::Object(map) => out.push(toleration(map, &mut fail)),
                    Value::Null => out.push(Toleration::default()),
                    other => {
                        fail(format!(
                            "json: cannot unmarshal {} into Go value of type core.Toleration",
                            kind(other)
                        ));
                        out.push(Toleration::default());
                    }
                }
            }
        }
        other => fail(format!(
            "json: cannot unmarshal {} into Go value of type []core.Toleration",
            kind(other)
        )),
    }
    first_error.map_or(Ok(out), Err)
}

/// One `core.Toleration` from an object.
fn toleration(map: &serde_json::Map<String, Value>, fail: &mut impl FnMut(String)) -> Toleration {
    let mut t = Toleration::default();
    for (key, v) in map {
        let field_error = |value: String, ty: &str| {
            let field = ["Key", "Operator", "Value", "Effect", "TolerationSeconds"]
                .into_iter()
                .find(|f| f.eq_ignore_ascii_case(key))
                .unwrap_or_default();
            format!("json: cannot unmarshal {value} into Go struct field Toleration.{field} of type {ty}")
        };
        let text = |v: &Value, ty: &str, fail: &mut dyn FnMut(String)| match v {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => {
                fail(field_error(kind(other), ty));
                None
            }
        };
        match key.to_ascii_lowercase().as_str() {
            "key" => t.key = text(v, "string", fail),
            "operator" => t.operator = text(v, "core.TolerationOperator", fail),
            "value" => t.value = text(v, "string", fail),
            "effect" => t.effect = text(v, "core.TaintEffect", fail),
            "tolerationseconds" => match v {
                Value::Null => {}
                Value::Number(n) => match n.to_string().parse::<i64>() {
                    Ok(s) => t.toleration_seconds = Some(s),
                    Err(_) => fail(field_error(format!("number {n}"), "int64")),
                },
                other => fail(field_error(kind(other), "int64")),
            },
            _ => {}
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_read_like_go() {
        assert_eq!(
            syntax_error("not json").as_deref(),
            Some("invalid character 'o' in literal null (expecting 'u')")
        );
        assert_eq!(syntax_error("[").as_deref(), Some(EOF));
        assert_eq!(syntax_error("").as_deref(), Some(EOF));
        assert_eq!(
            syntax_error("[1,]").as_deref(),
            Some("invalid character ']' looking for beginning of value")
        );
        assert_eq!(
            syntax_error("{\"a\" 1}").as_deref(),
            Some("invalid character '1' after object key")
        );
        assert_eq!(
            syntax_error("[] x").as_deref(),
            Some("invalid character 'x' after top-level value")
        );
        assert_eq!(syntax_error("[{\"key\":\"a\"}, 1.5e3, null]"), None);
    }

    #[test]
    fn type_errors_name_the_go_field() {
        assert_eq!(
            tolerations("{}").unwrap_err(),
            "json: cannot unmarshal object into Go value of type []core.Toleration"
        );
        assert_eq!(
            tolerations("[{\"key\": 1}]").unwrap_err(),
            "json: cannot unmarshal number into Go struct field Toleration.Key of type string"
        );
        assert_eq!(
            tolerations("[{\"tolerationSeconds\": 1.5}]").unwrap_err(),
            "json: cannot unmarshal number 1.5 into Go struct field Toleration.TolerationSeconds of type int64"
        );
        let t = tolerations("[{\"Key\": \"a\", \"effect\": \"NoExecute\"}]").unwrap();
        assert_eq!(t[0].key.as_deref(), Some("a"));
    }
}
