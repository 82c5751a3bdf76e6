//! A document's node tree into the JSON kubectl sends: goyaml.v2's decoding into `interface{}`
//! (aliases expanded under its aliasing limit, `<<` merges applied in its order, the last of
//! repeated keys kept), then `sigs.k8s.io/yaml`'s conversion (keys turned into strings) and
//! `encoding/json`'s numbers.

use std::collections::HashSet;

use serde_json::{Map, Number, Value};

use super::resolve::{self, Scalar};
use super::tree::{Kind, Node, Nodes};
use super::{ErrorKind, LocalError, MAX_DEPTH};
use crate::field::Path;

/// The document's JSON value and its repeated keys.
pub(super) fn to_json(nodes: &Nodes) -> Result<(Value, Vec<Path>), LocalError> {
    if nodes.get(0).is_none() {
        return Ok((Value::Null, Vec::new()));
    }
    let mut c = Converter {
        nodes,
        decodes: 0,
        alias_decodes: 0,
        alias_depth: 0,
        expanding: HashSet::new(),
        path: Vec::new(),
        depth: 0,
        duplicates: Vec::new(),
    };
    let value = c.value(0)?;
    Ok((value, c.duplicates))
}

/// One step of the path to the value being built.
enum Step {
    Key(String),
    Index(usize),
}

struct Converter<'a> {
    nodes: &'a Nodes,
    /// goyaml.v2's `decodeCount` and `aliasCount`: nodes decoded, and those inside an alias.
    decodes: usize,
    alias_decodes: usize,
    alias_depth: usize,
    /// The alias nodes being expanded (one met again contains itself).
    expanding: HashSet<usize>,
    path: Vec<Step>,
    /// Lists and maps open around the value being built.
    depth: usize,
    duplicates: Vec<Path>,
}

impl<'a> Converter<'a> {
    fn node(&self, id: usize) -> &'a Node {
        let nodes: &'a Nodes = self.nodes;
        // Node numbers come from the tree itself; the first node exists (checked by `to_json`).
        nodes.get(id).unwrap_or(&nodes.nodes[0])
    }

    fn field(&self) -> Path {
        self.path.iter().fold(Path::default(), |p, step| match step {
            Step::Key(k) => p.child(k.clone()),
            Step::Index(i) => p.index(*i),
        })
    }

    fn error(&self, id: usize, kind: ErrorKind) -> LocalError {
        let node = self.node(id);
        LocalError {
            line: node.line,
            col: node.col,
            field: self.field().document_field(),
            kind,
        }
    }

    /// goyaml.v2's `unmarshal` bookkeeping: refuse a document whose aliases expand far beyond
    /// its size ("billion laughs"), with goyaml.v2's ratio.
    fn count(&mut self, id: usize) -> Result<(), LocalError> {
        self.decodes += 1;
        if self.alias_depth > 0 {
            self.alias_decodes += 1;
        }
        let allowed = match self.decodes {
            d if d <= 400_000 => 0.99,
            d if d >= 4_000_000 => 0.10,
            d => 0.99 - 0.89 * ((d - 400_000) as f64 / 3_600_000.0),
        };
        if self.alias_decodes > 100
            && self.decodes > 1000
            && self.alias_decodes as f64 / self.decodes as f64 > allowed
        {
            return Err(self.error(id, ErrorKind::Aliasing));
        }
        Ok(())
    }

    /// Run `f` on `target` as the expansion of alias node `id`.
    fn through_alias<T>(
        &mut self,
        id: usize,
        target: usize,
        f: impl FnOnce(&mut Self, usize) -> Result<T, LocalError>,
    ) -> Result<T, LocalError> {
        if !self.expanding.insert(id) {
            return Err(self.error(id, ErrorKind::Value("anchor value contains itself".into())));
        }
        self.alias_depth += 1;
        let out = f(self, target);
        self.alias_depth -= 1;
        self.expanding.remove(&id);
        out
    }

    fn value(&mut self, id: usize) -> Result<Value, LocalError> {
        self.count(id)?;
        match &self.node(id).kind {
            Kind::Scalar { text, plain, tag } => {
                let scalar = resolve::scalar(text, *plain, tag.as_deref())
                    .map_err(|m| self.error(id, ErrorKind::Value(m)))?;
                self.json(id, text, scalar)
            }
            Kind::Alias(target) => self.through_alias(id, *target, Self::value),
            Kind::Seq(items) => {
                self.enter(id)?;
                let mut out = Vec::with_capacity(items.len());
                for (i, &item) in items.iter().enumerate() {
                    self.path.push(Step::Index(i));
                    out.push(self.value(item)?);
                    self.path.pop();
                }
                self.depth -= 1;
                Ok(Value::Array(out))
            }
            Kind::Map(_) => {
                self.enter(id)?;
                let mut out = Map::new();
                self.fill(id, &mut out)?;
                self.depth -= 1;
                Ok(Value::Object(out))
            }
        }
    }

    fn enter(&mut self, id: usize) -> Result<(), LocalError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(id, ErrorKind::TooDeep));
        }
        self.depth += 1;
        Ok(())
    }

    /// Set the entries of map node `id` in `out`, in order: a merge key's maps are set where it
    /// stands (later keys override them, they override earlier keys), as goyaml.v2 does.
    fn fill(&mut self, id: usize, out: &mut Map<String, Value>) -> Result<(), LocalError> {
        let Kind::Map(children) = &self.node(id).kind else {
            return Ok(());
        };
        let mut written = HashSet::new();
        for pair in children.chunks(2) {
            let &[k, v] = pair else { continue };
            if self.is_merge(k) {
                self.merge(v, out)?;
                continue;
            }
            let key = self.key(k)?;
            self.path.push(Step::Key(key.clone()));
            if !written.insert(key.clone()) {
                self.duplicates.push(self.field());
            }
            let value = self.value(v)?;
            self.path.pop();
            out.insert(key, value);
        }
        Ok(())
    }

    fn is_merge(&self, id: usize) -> bool {
        matches!(&self.node(id).kind, Kind::Scalar { text, plain, tag }
            if text == "<<" && (*plain || tag.as_deref() == Some(resolve::MERGE)))
    }

    /// goyaml.v2's `merge`: a map, an alias of one, or a list of those (the earlier ones win).
    fn merge(&mut self, id: usize, out: &mut Map<String, Value>) -> Result<(), LocalError> {
        const WANT_MAP: &str = "map merge requires map or sequence of maps as the value";
        self.count(id)?;
        match &self.node(id).kind {
            Kind::Map(_) => self.fill(id, out),
            Kind::Alias(target) => self.merge_alias(id, *target, out),
            Kind::Seq(items) => {
                for &item in items.iter().rev() {
                    self.count(item)?;
                    match &self.node(item).kind {
                        Kind::Map(_) => self.fill(item, out)?,
                        Kind::Alias(target) => self.merge_alias(item, *target, out)?,
                        _ => return Err(self.error(item, ErrorKind::Value(WANT_MAP.into()))),
                    }
                }
                Ok(())
            }
            Kind::Scalar { .. } => Err(self.error(id, ErrorKind::Value(WANT_MAP.into()))),
        }
    }

    fn merge_alias(
        &mut self,
        id: usize,
        target: usize,
        out: &mut Map<String, Value>,
    ) -> Result<(), LocalError> {
        if !matches!(self.node(target).kind, Kind::Map(_)) {
            return Err(self.error(
                id,
                ErrorKind::Value("map merge requires map or sequence of maps as the value".into()),
            ));
        }
        self.through_alias(id, target, |c, t| {
            c.count(t)?;
            c.fill(t, out)
        })
    }

    /// A map key as `sigs.k8s.io/yaml` writes it: strings as they are, integers in decimal,
    /// floats as Go's `FormatFloat(f, 'g', -1, 32)`, booleans `true`/`false`; null and lists or
    /// maps are refused.
    fn key(&mut self, id: usize) -> Result<String, LocalError> {
        self.count(id)?;
        let scalar = match &self.node(id).kind {
            Kind::Alias(target) => return self.through_alias(id, *target, Self::key),
            Kind::Scalar { text, plain, tag } => resolve::scalar(text, *plain, tag.as_deref())
                .map_err(|m| self.error(id, ErrorKind::Value(m)))?,
            Kind::Seq(_) | Kind::Map(_) => {
                return Err(self.error(
                    id,
                    ErrorKind::Value("invalid map key: a list or map cannot be a key".into()),
                ));
            }
        };
        match scalar {
            Scalar::Str(s) => Ok(s),
            Scalar::Int(i) => Ok(i.to_string()),
            Scalar::Bool(b) => Ok(b.to_string()),
            Scalar::Float(f) => Ok(go_format_g32(f)),
            Scalar::Null => Err(self.error(
                id,
                ErrorKind::Value("unsupported map key: null (kubectl cannot convert it to JSON)".into()),
            )),
            Scalar::Uint(u) => Err(self.error(
                id,
                ErrorKind::Value(format!(
                    "unsupported map key: {u} (kubectl converts integer keys up to 9223372036854775807)"
                )),
            )),
        }
    }

    /// A scalar's JSON, numbers as `encoding/json` writes them: a float with no fraction below
    /// 1e21 is written as an integer; infinities and NaN are refused.
    fn json(&self, id: usize, text: &str, scalar: Scalar) -> Result<Value, LocalError> {
        Ok(match scalar {
            Scalar::Null => Value::Null,
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Int(i) => Value::Number(i.into()),
            Scalar::Uint(u) => Value::Number(u.into()),
            Scalar::Str(s) => Value::String(s),
            Scalar::Float(f) => Value::Number(go_json_number(f).ok_or_else(|| {
                self.error(
                    id,
                    ErrorKind::Value(format!(
                        "`{text}` is not a number JSON can hold (kubectl refuses infinities and NaN)"
                    )),
                )
            })?),
        })
    }
}

/// `encoding/json`'s float64: below 1e21 an integral value is written as an integer, its shortest
/// digits followed by zeros (`-9223372036854775809` is the float -2^63, written
/// `-9223372036854776000`, which no int64 holds); that text is read back as the integer it is when
/// it fits, else the float stays.
fn go_json_number(f: f64) -> Option<Number> {
    if !f.is_finite() {
        return None;
    }
    if f.fract() == 0.0 && f.abs() < 1e21 {
        let sci = format!("{f:e}");
        let (mantissa, exp) = sci.split_once('e')?;
        let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
        let zeros = (exp.parse::<usize>().ok()? + 1).saturating_sub(digits.len());
        let sign = if mantissa.starts_with('-') { "-" } else { "" };
        let text = format!("{sign}{digits}{}", "0".repeat(zeros));
        if let Ok(i) = text.parse::<i64>() {
            return Some(i.into());
        }
        if let Ok(u) = text.parse::<u64>() {
            return Some(u.into());
        }
    }
    Number::from_f64(f)
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)` with `sigs.k8s.io/yaml`'s names for infinities
/// and NaN: the shortest digits of the float32, in `%e` form when the exponent is below -4 or
/// at least 6 (Go's rule for the shortest `%g`).
fn go_format_g32(f: f64) -> String {
    let x = f as f32;
    if x.is_nan() {
        return ".nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    if x == 0.0 {
        return format!("{sign}0");
    }
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{frac}e{esign}{:02}", exp.abs());
    }
    let point = exp + 1;
    let nd = digits.len() as i32;
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point >= nd {
        format!("{digits}{}", "0".repeat((point - nd) as usize))
    } else {
        let (a, b) = digits.split_at(point as usize);
        format!("{a}.{b}")
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_as_go_writes_them() {
        for (f, json) in [
            (1000.0, "1000"),
            (0.5, "0.5"),
            (1.5e9, "1500000000"),
            (-0.0, "0"),
            (0.0, "0"),
            (-9_223_372_036_854_775_808.0, "-9.223372036854776e+18"),
            (9_223_372_036_854_775_808.0, "9223372036854776000"),
        ] {
            assert_eq!(go_json_number(f).unwrap().to_string(), json, "{f}");
        }
        assert!(go_json_number(f64::NAN).is_none());
        for (f, key) in [
            (1.5, "1.5"),
            (100000.0, "100000"),
            (1e6, "1e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (0.1, "0.1"),
            (-2.5e-7, "-2.5e-07"),
            (3.0, "3"),
            (f64::INFINITY, ".inf"),
        ] {
            assert_eq!(go_format_g32(f), key, "{f}");
        }
    }
}
