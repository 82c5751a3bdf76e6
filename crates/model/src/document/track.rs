//! Typed decoding of JSON text through the component's one deserializer type: serde_json's,
//! wrapped by `serde_ignored`, which names every field the target type skips.
//!
//! Every typed decoding of JSON text goes through [`from_str`] or [`from_str_tracked`]: the
//! k8s-openapi decoders are instantiated for one deserializer type only, so a decoding that notes
//! nothing runs the same wrapper with a callback that does nothing. A second deserializer type
//! would carry every decoder twice (+0.77 MB of component).
//!
//! A value the type skips is the one read with `deserialize_ignored_any` (k8s-openapi's and
//! serde's `IgnoredAny` for an unknown key), so the wrapper names the outermost unknown field and
//! does not look into its value. Errors are serde_json's own, raised where serde_json raises
//! them.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::field::Path;

/// What the wrapper calls with the path of every skipped field.
type OnIgnored<'a> = &'a mut dyn FnMut(serde_ignored::Path<'_>);

/// Decode JSON text into `T` like `serde_json::from_str`, through the one deserializer type.
pub(crate) fn from_str<'de, T: de::Deserialize<'de>>(text: &'de str) -> Result<T, serde_json::Error> {
    decode(text, &mut |_| {})
}

/// [`from_str`], also giving the paths of the fields `T` skips, in the order read.
pub(crate) fn from_str_tracked<'de, T: de::Deserialize<'de>>(
    text: &'de str,
) -> (Result<T, serde_json::Error>, Vec<Path>) {
    let mut unknown = Vec::new();
    let out = decode(text, &mut |path| unknown.push(document_path(&path)));
    (out, unknown)
}

fn decode<'de, T: de::Deserialize<'de>>(
    text: &'de str,
    mut on_ignored: OnIgnored<'_>,
) -> Result<T, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(serde_ignored::Deserializer::new(&mut de, &mut on_ignored))?;
    de.end()?;
    Ok(value)
}

/// A `serde_ignored` path as the path of a place in the document.
fn document_path(path: &serde_ignored::Path<'_>) -> Path {
    use serde_ignored::Path as P;
    match path {
        P::Root => Path::default(),
        P::Seq { parent, index } => document_path(parent).index(*index),
        P::Map { parent, key } => document_path(parent).child(key.clone()),
        P::Some { parent } | P::NewtypeStruct { parent } | P::NewtypeVariant { parent } => {
            document_path(parent)
        }
    }
}

/// Whether an object of the JSON text gives a key twice (or the text is not JSON).
///
/// Hand-written because no library reports it: serde_json keeps the last of repeated keys and
/// `serde_ignored` names only skipped fields, so the text is walked once more, building nothing.
pub(crate) fn has_repeated_key(text: &str) -> bool {
    let mut de = serde_json::Deserializer::from_str(text);
    let mut keys = Vec::new();
    Repeats(&mut keys)
        .deserialize(&mut de)
        .and_then(|()| de.end())
        .is_err()
}

/// Walks a JSON value; fails at the first object that gives a key twice. The keys of the objects
/// open at the moment are kept on one stack, so reading an object allocates nothing.
struct Repeats<'k, 'de>(&'k mut Vec<Cow<'de, str>>);

impl<'de> DeserializeSeed<'de> for Repeats<'_, 'de> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Repeats<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Repeats(&mut *self.0))?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let start = self.0.len();
        while let Some(key) = map.next_key_seed(Key)? {
            self.0.push(key);
            map.next_value_seed(Repeats(&mut *self.0))?;
        }
        let keys = self.0.get_mut(start..).unwrap_or_default();
        keys.sort_unstable();
        if keys.windows(2).any(|pair| pair[0] == pair[1]) {
            return Err(de::Error::custom("a key is repeated"));
        }
        self.0.truncate(start);
        Ok(())
    }
}

/// An object's key: borrowed from the text unless it has escapes.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Cow<'de, str>, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::Pod;
    use serde::de::DeserializeOwned;

    use super::*;

    /// A tracked decoding: the object or the error, the unknown fields, whether a key repeated.
    fn tracked<T: DeserializeOwned>(json: &str) -> (Result<T, String>, Vec<String>, bool) {
        let (out, unknown) = from_str_tracked::<T>(json);
        let unknown = unknown.iter().map(Path::document_field).collect();
        (out.map_err(|e| e.to_string()), unknown, has_repeated_key(json))
    }

    fn untracked<T: DeserializeOwned>(json: &str) -> Result<T, String> {
        from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn a_repeated_key_is_noted_anywhere_and_reads_as_its_last_value() {
        let many: Vec<String> = (0..40).map(|i| format!("\"k{i}\":\"v\"")).collect();
        let large = format!(
            r#"{{"metadata":{{"labels":{{{},"k7":"last"}}}}}}"#,
            many.join(",")
        );
        for (text, label) in [
            (r#"{"spec":{"hostname":"a","nodeName":"n","hostname":"b"}}"#, None),
            (
                r#"{"metadata":{"labels":{"a":"1","b":"0","a":"last"}}}"#,
                Some(("a", "last")),
            ),
            (
                r#"{"spec":{"containers":[{"name":"a"},{"name":"b","image":"x","image":"y"}]}}"#,
                None,
            ),
            (r#"{"spec":{"bogus":{"x":[{"y":1,"y":2}]}}}"#, None),
            (
                r#"{"metadata":{"labels":{"ab":"1","a\u0062":"last"}}}"#,
                Some(("ab", "last")),
            ),
            (&large, Some(("k7", "last"))),
        ] {
            let (out, _, repeated) = tracked::<Pod>(text);
            assert!(repeated, "{text}");
            let pod: Pod = untracked(text).unwrap();
            assert_eq!(out.unwrap(), pod, "{text}");
            assert_eq!(pod, serde_json::from_str::<Pod>(text).unwrap(), "{text}");
            if let Some((key, value)) = label {
                assert_eq!(pod.metadata.labels.unwrap()[key], value, "{text}");
            }
        }
        // The same key in different objects, or in sibling list elements, is no repeat.
        for text in [
            r#"{"metadata":{"name":"a","labels":{"name":"x"}},"spec":{"containers":[{"name":"a"},{"name":"b"}]}}"#,
            r#"{"spec":{"bogus":[{"x":1},{"x":2}],"containers":[]}}"#,
        ] {
            let (out, _, repeated) = tracked::<Pod>(text);
            assert!(!repeated && out.is_ok(), "{text}");
        }
    }

    #[test]
    fn keys_that_differ_are_no_repeat() {
        // Keys of every length to 17 bytes and each one byte off: all distinct, in one object
        // and in list elements; any one of them given twice is a repeat.
        let mut keys: Vec<String> = Vec::new();
        for n in 0..=17 {
            let key: String = "abcdefghijklmnopq".chars().take(n).collect();
            for i in 0..n {
                let mut other = key.clone().into_bytes();
                other[i] = b'Z';
                keys.push(String::from_utf8(other).unwrap());
            }
            keys.push(key);
        }
        let labels: Vec<String> = keys.iter().map(|k| format!("\"{k}\":\"v\"")).collect();
        let text = format!(r#"{{"metadata":{{"labels":{{{}}}}}}}"#, labels.join(","));
        let (out, unknown, repeated) = tracked::<Pod>(&text);
        assert!(out.is_ok() && unknown.is_empty() && !repeated);
        let list = format!(r#"[{{{}}},{{{}}}]"#, labels.join(","), labels.join(","));
        assert!(!has_repeated_key(&list));
        for key in &keys {
            let text = format!(
                r#"{{"metadata":{{"labels":{{{},"{key}":"w"}}}}}}"#,
                labels.join(",")
            );
            assert!(has_repeated_key(&text), "{key:?}");
        }
        // Text that is not JSON counts as a repeat: the caller reads it the general way.
        assert!(has_repeated_key(r#"{"a":1"#));
        assert!(has_repeated_key(r#"{"a":1} x"#));
    }

    #[test]
    fn unknown_fields_are_noted_at_their_path_and_not_looked_into() {
        let text = r#"{"spec":{"containers":[{"name":"a"},{"name":"b","livenessProbe":{"tcpSocket":{"port":80,"hots":1}}}],"bogus":{"deep":{"x":null}}},"metadata":{"labelz":{}}}"#;
        let (out, unknown, repeated) = tracked::<Pod>(text);
        assert!(!repeated);
        assert_eq!(out.unwrap(), serde_json::from_str::<Pod>(text).unwrap());
        assert_eq!(
            unknown,
            [
                "spec.containers[1].livenessProbe.tcpSocket.hots",
                "spec.bogus",
                "metadata.labelz"
            ]
        );
    }

    #[test]
    fn a_null_is_unknown_only_for_a_field_the_type_lacks() {
        let text = r#"{"metadata":{"creationTimestamp":null,"labels":null},"spec":{"securityContext":null,"containers":[{"name":"a","command":null,"resources":null,"bogus":null}],"nodeSelectr":null},"status":null}"#;
        let (out, unknown, _) = tracked::<Pod>(text);
        assert!(out.is_ok());
        assert_eq!(unknown, ["spec.containers[0].bogus", "spec.nodeSelectr"]);
    }

    #[test]
    fn escaped_keys_read_as_their_text() {
        let (out, unknown, _) = tracked::<Pod>(
            r#"{"metadata":{"n\u0061me":"x"},"spec":{"bo\"gus":1,"\u0062ad":2,"containers":[]}}"#,
        );
        assert_eq!(out.unwrap().metadata.name.as_deref(), Some("x"));
        assert_eq!(unknown, ["spec.bo\"gus", "spec.bad"]);
        // An escaped key above an unknown field, and plain keys after escaped ones.
        let (out, unknown, repeated) = tracked::<Pod>(
            r#"{"sp\u0065c":{"containers":[{"n\u0061me":"a","b\u006fgus":{"x":1},"imagee":2}],"nodeName":"n","zz":[{"a\u0062":1,"ab":2}]},"kind":"Pod"}"#,
        );
        assert!(out.is_ok() && repeated);
        assert_eq!(
            unknown,
            ["spec.containers[0].bogus", "spec.containers[0].imagee", "spec.zz"]
        );
    }

    #[test]
    fn decoding_through_the_tracker_is_serde_jsons_decoding() {
        for text in [
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"1"}},"livenessProbe":{"httpGet":{"port":"http"}}}]}}"#,
            r#"{"spec":{"containers":[{"name":"a"},{"name":5}]}}"#,
            "{\n \"metadata\": {\"labels\": {\"a\\\"b\": 1}}}",
            r#"{"kind":"Node"}"#,
            r#"{"apiVersion":"v2"}"#,
            r#"{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":1}}}]}}"#,
            r#"{"spec":{"containers":[]}} x"#,
            r#"{"spec":{"containers":["#,
            "[]",
        ] {
            let plain = serde_json::from_str::<Pod>(text).map_err(|e| e.to_string());
            assert_eq!(untracked::<Pod>(text), plain, "{text}");
            assert_eq!(tracked::<Pod>(text).0, plain, "{text}");
        }
        let text = r#"[{"memoryLimitDecrease": "allow", "kubernetesVersion": "1.30"}]"#;
        let plain = serde_json::from_str::<Vec<crate::settings::Settings>>(text).map_err(|e| e.to_string());
        assert_eq!(untracked::<Vec<crate::settings::Settings>>(text), plain);
    }
}
