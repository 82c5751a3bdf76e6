//! The generator of `crates/vap/src/schema.rs`: the field tree of the Pod (and of the ConfigMap and
//! Secret a policy's `paramKind` may name), as the compact table podmut's CEL type checker reads.
//!
//! Where it comes from: k8s-openapi's types, which are generated from the Kubernetes OpenAPI
//! definitions. Their `schemars` feature would hand us the schema directly, but it makes
//! k8s-openapi's build far heavier (a `json_schema!` expansion per type) and would build
//! k8s-openapi a second time in CI (once with, once without the feature). Instead this walks the
//! types' own `Deserialize` implementations with a tracing deserializer: each struct names its
//! fields (`deserialize_struct`'s `fields`), each field asks for its type (`deserialize_option`,
//! `_seq`, `_map`, `_str`, `_i64`, `_bool`, ...), so the tree is the schema's, field for field.
//! Strings that are formats (Quantity, Time, MicroTime, IntOrString) are told apart by the type's
//! `Visitor::expecting` text and become `*` (dyn): the API server types them as quantities,
//! timestamps or int-or-string, podmut's runtime sees their JSON form.
//!
//! The table: `(object, [(field, type)])`, both sorted; a type is `s` string, `i` int, `b` bool,
//! `d` double, `y` bytes, `*` dyn, `[T` a list of T, `{T` a map (string keys) of T, otherwise an
//! object's name. `cargo xtask bless -- vap/` rewrites the file; the trial `vap/schema-table`
//! fails when it is stale.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::de::{self, DeserializeSeed, Deserializer, Expected, MapAccess, SeqAccess, Visitor};

/// Where the generated table lives, from the cases directory.
pub fn path() -> std::path::PathBuf {
    crate::cases_dir().join("../../crates/vap/src/schema.rs")
}

type Fields = BTreeMap<&'static str, String>;

/// Objects seen so far, by their Rust (= OpenAPI) name.
#[derive(Default)]
struct Registry {
    objects: BTreeMap<&'static str, Fields>,
    /// The traced object's kind (its `kind` must say so; any other `kind` field takes any string).
    kind: &'static str,
}

/// A deserializer that records the type it is asked for in `out` (and every struct's fields in
/// the registry), handing back the smallest value that type accepts.
struct Tracer<'a> {
    registry: &'a RefCell<Registry>,
    out: &'a mut String,
    /// The string to hand a plain string field.
    sample: &'static str,
}

type Error = de::value::Error;

/// The type names whose JSON form is a string with a format: dyn in the table.
const FORMATS: &[&str] = &["Quantity", "Time", "MicroTime", "IntOrString"];

/// A string every format accepts (Quantity and IntOrString take any string).
const TIMESTAMP: &str = "1970-01-01T00:00:00Z";

fn expected(v: &dyn Expected) -> String {
    let mut s = String::new();
    let _ = write!(s, "{v}");
    s
}

impl<'de> Deserializer<'de> for Tracer<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        // IntOrString (and any untyped value): a string is one of the forms it accepts.
        *self.out = "*".into();
        visitor.visit_str("0")
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        *self.out = "b".into();
        visitor.visit_bool(false)
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        *self.out = "i".into();
        visitor.visit_i64(0)
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        *self.out = "d".into();
        visitor.visit_f64(0.0)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let what = expected(&visitor);
        if FORMATS.contains(&what.as_str()) {
            *self.out = "*".into();
            return visitor.visit_str(TIMESTAMP);
        }
        if what.contains("base64") {
            *self.out = "y".into();
            return visitor.visit_str("");
        }
        *self.out = "s".into();
        visitor.visit_str(self.sample)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        *self.out = "y".into();
        visitor.visit_bytes(&[])
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        *self.out = "*".into();
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        if FORMATS.contains(&name) {
            // Time and MicroTime wrap a timestamp: hand it one.
            let mut inner = String::new();
            let value = visitor.visit_newtype_struct(Tracer {
                registry: self.registry,
                out: &mut inner,
                sample: TIMESTAMP,
            })?;
            *self.out = "*".into();
            return Ok(value);
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let mut elem = String::new();
        let value = visitor.visit_seq(One {
            registry: self.registry,
            out: &mut elem,
            done: false,
        })?;
        *self.out = format!("[{elem}");
        Ok(value)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        *self.out = "*".into();
        visitor.visit_unit()
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let mut elem = String::new();
        let value = visitor.visit_map(Entries {
            registry: self.registry,
            keys: &["key"],
            next: 0,
            out: EntryOut::One(&mut elem),
        })?;
        *self.out = format!("{{{elem}");
        Ok(value)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let mut seen = Fields::new();
        let value = visitor.visit_map(Entries {
            registry: self.registry,
            keys: fields,
            next: 0,
            out: EntryOut::Fields(&mut seen),
        })?;
        self.registry.borrow_mut().objects.insert(name, seen);
        *self.out = name.to_owned();
        Ok(value)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Error> {
        Err(de::Error::custom("enums do not occur in Kubernetes objects"))
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

/// A list of one element.
struct One<'a> {
    registry: &'a RefCell<Registry>,
    out: &'a mut String,
    done: bool,
}

impl<'de> SeqAccess<'de> for One<'_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        if self.done {
            return Ok(None);
        }
        self.done = true;
        seed.deserialize(Tracer {
            registry: self.registry,
            out: self.out,
            sample: "",
        })
        .map(Some)
    }
}

enum EntryOut<'a> {
    /// A map: every value has the same type.
    One(&'a mut String),
    /// A struct: each field its own.
    Fields(&'a mut Fields),
}

/// A map (or struct) with one entry per key.
struct Entries<'a> {
    registry: &'a RefCell<Registry>,
    keys: &'static [&'static str],
    next: usize,
    out: EntryOut<'a>,
}

impl<'de> MapAccess<'de> for Entries<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some(key) = self.keys.get(self.next) else {
            return Ok(None);
        };
        seed.deserialize(de::value::BorrowedStrDeserializer::new(key))
            .map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        let key = self.keys.get(self.next).copied().unwrap_or_default();
        self.next += 1;
        let mut ty = String::new();
        let sample = match key {
            "apiVersion" => "v1",
            "kind" => self.registry.borrow().kind,
            _ => "",
        };
        let value = seed.deserialize(Tracer {
            registry: self.registry,
            out: &mut ty,
            sample,
        })?;
        match &mut self.out {
            EntryOut::One(out) => **out = ty,
            EntryOut::Fields(fields) => {
                fields.insert(key, ty);
            }
        }
        Ok(value)
    }
}

/// Trace `T`'s fields into `registry`.
fn trace<T: for<'de> serde::Deserialize<'de>>(
    kind: &'static str,
    registry: &RefCell<Registry>,
) -> Result<(), String> {
    registry.borrow_mut().kind = kind;
    let mut root = String::new();
    T::deserialize(Tracer {
        registry,
        out: &mut root,
        sample: "",
    })
    .map(drop)
    .map_err(|e| format!("tracing {}: {e}", std::any::type_name::<T>()))
}

/// The source of `crates/vap/src/schema.rs`.
pub fn source() -> Result<String, String> {
    use k8s_openapi::api::core::v1::{ConfigMap, Pod, Secret};
    let registry = RefCell::new(Registry::default());
    trace::<Pod>("Pod", &registry)?;
    trace::<ConfigMap>("ConfigMap", &registry)?;
    trace::<Secret>("Secret", &registry)?;
    let registry = registry.into_inner();
    let mut s = String::from(
        "//! GENERATED from k8s-openapi's Pod, ConfigMap and Secret by tests/src/vap_schema.rs (the\n\
         //! format is described there): do not edit. `cargo xtask bless -- vap/` rewrites it; the\n\
         //! conformance trial `vap/schema-table` fails when it is stale.\n\n\
         /// `(object, [(field, type)])`, sorted by object and by field.\n\
         #[rustfmt::skip]\n\
         pub(super) static OBJECTS: &[(&str, &[(&str, &str)])] = &[\n",
    );
    for (name, fields) in &registry.objects {
        let _ = writeln!(s, "    (\n        {name:?},\n        &[");
        for (field, ty) in fields {
            let _ = writeln!(s, "            ({field:?}, {ty:?}),");
        }
        let _ = writeln!(s, "        ],\n    ),");
    }
    s.push_str("];\n");
    Ok(s)
}

/// Compare `crates/vap/src/schema.rs` with what k8s-openapi says now; `bless` rewrites it.
pub fn check(bless: bool) -> Result<(), String> {
    let want = source()?;
    let path = path();
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have == want {
        return Ok(());
    }
    if bless {
        return std::fs::write(&path, &want).map_err(|e| format!("cannot write {}: {e}", path.display()));
    }
    Err(format!(
        "crates/vap/src/schema.rs is stale (regenerate it: cargo xtask bless -- vap/):\n{}",
        podmut_fixtures::unified_diff("crates/vap/src/schema.rs", &have, &want)
    ))
}
