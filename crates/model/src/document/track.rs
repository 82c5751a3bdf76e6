//! The component's one JSON deserializer type: serde_json's, wrapped so that a decoding can note,
//! while it decodes, every field the target type skips and every key repeated within one object
//! (the technique of `serde_ignored` and `serde_path_to_error`, written here).
//!
//! Every typed decoding of JSON text goes through [`from_str`] (tracking off) or
//! [`from_str_tracked`] (strict field validation): the k8s-openapi decoders are instantiated for
//! one deserializer type only, [`Tracked`] over `&mut serde_json::Deserializer<StrRead>`. A second
//! type would carry every decoder twice (+0.77 MB of component).
//!
//! The wrappers are newtypes of what they wrap: what is noted lives in a thread-local [`State`],
//! switched on for the length of one tracked decoding, so a decoding with tracking off runs the
//! same code as serde_json's plus one flag test per key, value and list element (passing a
//! tracker through every wrapper cost +199 KB of component; this way, +106 KB). Map keys are captured through a
//! wrapping key seed; a value the type skips is the one read with `deserialize_ignored_any`
//! (k8s-openapi's and serde's `IgnoredAny` for an unknown key). Errors are serde_json's own,
//! raised where serde_json raises them, so they carry the same message and position as a plain
//! decoding. A repeated key is only noted: the decoding goes on and keeps its last value, as
//! serde_json does (the caller reads such a text the general way, [`Report::repeated`]).
//!
//! The wrappers' forwarding methods are `#[inline]` in native builds only: without the hint the
//! inliner kept the tracking-off decoding's key, object and option paths out of line (+29 k
//! instructions per 5-container review; with it −16 k). The
//! size-first component builds (wasm) keep their own inlining: with the hint the shipped
//! component was +7 KB gzip -9.

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

use crate::json_path::Segment;

thread_local! {
    /// Whether a tracked decoding is running on this thread.
    static ON: Cell<bool> = const { Cell::new(false) };
    /// What it has noted so far.
    static STATE: RefCell<State> = const { RefCell::new(State::new()) };
}

#[cfg_attr(not(target_family = "wasm"), inline)]
fn on() -> bool {
    ON.get()
}

fn with_state<R>(f: impl FnOnce(&mut State) -> R) -> R {
    STATE.with_borrow_mut(f)
}

/// What a tracked decoding noted.
#[derive(Debug, Default)]
pub(crate) struct Report {
    /// The paths of the fields the type skipped, in the order read.
    pub unknown: Vec<Vec<Segment>>,
    /// A key was given twice in one object — or, rarely, two keys of one object longer than 16
    /// bytes share their length and first and last 8 bytes ([`Print`]): the caller reads such a
    /// text the general way, which names exactly the keys given twice.
    pub repeated: bool,
}

/// A key's print: its length and its first and last (up to) 8 bytes. Equal keys have equal
/// prints, and keys of up to 16 bytes (nearly all of a Pod's) have equal prints only when equal;
/// longer keys may share a print, which only sends the text to the general path (see
/// [`Report::repeated`]). Comparing prints costs a few instructions per key where comparing
/// the keys' text cost a `memcmp` call, and keeps no copy of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Print(usize, u64, u64);

impl Print {
    /// Loads whole words (no copy call): keys of 4 to 7 bytes are their first and last 4 bytes,
    /// shorter ones their bytes one by one.
    fn of(key: &str) -> Self {
        let b = key.as_bytes();
        let n = b.len();
        let u64_at = |at: usize| {
            b.get(at..at + 8)
                .and_then(|w| <[u8; 8]>::try_from(w).ok())
                .map_or(0, u64::from_le_bytes)
        };
        let u32_at = |at: usize| {
            b.get(at..at + 4)
                .and_then(|w| <[u8; 4]>::try_from(w).ok())
                .map_or(0, |w| u64::from(u32::from_le_bytes(w)))
        };
        match n {
            8.. => Self(n, u64_at(0), u64_at(n - 8)),
            4..8 => Self(n, u32_at(0) | u32_at(n - 4) << 32, 0),
            _ => Self(n, b.iter().fold(0, |w, &c| w << 8 | u64::from(c)), 0),
        }
    }
}

/// Where a key's text is: in the decoded input (as serde_json hands on a key without escapes) or
/// in [`State::owned`].
#[derive(Clone, Copy, Debug)]
enum Text {
    /// Bytes `at..at + len` of the input.
    Input(usize, usize),
    /// Bytes `at..at + len` of [`State::owned`].
    Owned(usize, usize),
}

/// A step of a path noted while decoding: a key of the input is resolved once the decoding ends.
#[derive(Debug)]
enum Step {
    /// A segment known already.
    Done(Segment),
    /// The key at bytes `at..at + len` of the input.
    Input(usize, usize),
}

/// The tracked decoding's state.
#[derive(Debug)]
struct State {
    /// Where the input is in memory (its address and length): a key inside it is noted by its
    /// place, not copied.
    input: (usize, usize),
    /// The prints of the keys of the objects open now, outermost first, one after the other.
    prints: Vec<Print>,
    /// The text of the open objects' last keys that are not slices of the input (escaped keys).
    owned: String,
    /// The objects and lists open now, outermost first: the path of the value being read is
    /// each object's last key and each list's current index.
    frames: Vec<Frame>,
    /// The paths of the unknown fields, their input keys not resolved yet.
    unknown: Vec<Vec<Step>>,
    /// A key repeated (or a shared print, [`Print`]).
    repeated: bool,
}

/// An open object or list.
#[derive(Debug)]
enum Frame {
    /// An object.
    Object {
        /// Its first key's index in [`State::prints`] (the prints after it up to the next
        /// object's are its own).
        start: usize,
        /// The length of [`State::owned`] when it opened.
        owned: usize,
        /// Its last key, once it has one.
        last: Option<Text>,
        /// Its keys' prints as a set, once it has more than [`LARGE`].
        large: Option<BTreeSet<Print>>,
    },
    /// A list and the index of the element being read (`None` before the first).
    List(Option<usize>),
}

/// Beyond this many keys an object's keys' prints are also kept in a set.
const LARGE: usize = 32;

impl State {
    const fn new() -> Self {
        Self {
            input: (0, 0),
            prints: Vec::new(),
            owned: String::new(),
            frames: Vec::new(),
            unknown: Vec::new(),
            repeated: false,
        }
    }

    /// Note a key of the innermost open object, and whether it repeats one of its keys.
    fn note_key(&mut self, key: &str) {
        let Some(Frame::Object {
            start,
            owned,
            last,
            large,
        }) = self.frames.last_mut()
        else {
            return;
        };
        *last = Some(place(self.input, &mut self.owned, *owned, key));
        let print = Print::of(key);
        let given = self.prints.get(*start..).unwrap_or_default();
        let repeated = match large {
            Some(set) => !set.insert(print),
            None => {
                let repeated = given.contains(&print);
                if given.len() >= LARGE {
                    let mut set: BTreeSet<Print> = given.iter().copied().collect();
                    set.insert(print);
                    *large = Some(set);
                }
                repeated
            }
        };
        self.prints.push(print);
        self.repeated |= repeated;
    }

    fn open(&mut self, frame: Frame) {
        self.frames.push(frame);
    }

    fn close(&mut self) {
        if let Some(Frame::Object { start, owned, .. }) = self.frames.pop() {
            self.prints.truncate(start);
            self.owned.truncate(owned);
        }
    }

    /// The next element of the innermost list.
    fn next_index(&mut self) {
        if let Some(Frame::List(index)) = self.frames.last_mut() {
            *index = Some(index.map_or(0, |i| i + 1));
        }
    }

    /// The current path, its input keys to be resolved.
    fn path(&self) -> Vec<Step> {
        self.frames
            .iter()
            .filter_map(|frame| match *frame {
                Frame::Object {
                    last: Some(Text::Input(at, len)),
                    ..
                } => Some(Step::Input(at, len)),
                Frame::Object {
                    last: Some(Text::Owned(at, len)),
                    ..
                } => {
                    let key = self.owned.get(at..at + len).unwrap_or_default();
                    Some(Step::Done(Segment::Key(key.to_owned())))
                }
                Frame::List(Some(i)) => Some(Step::Done(Segment::Index(i))),
                Frame::Object { last: None, .. } | Frame::List(None) => None,
            })
            .collect()
    }

    /// What was noted, the input keys of the paths read from `input`.
    fn into_report(self, input: &str) -> Report {
        let resolve = |step: Step| match step {
            Step::Done(segment) => segment,
            Step::Input(at, len) => Segment::Key(input.get(at..at + len).unwrap_or_default().to_owned()),
        };
        Report {
            unknown: self
                .unknown
                .into_iter()
                .map(|path| path.into_iter().map(resolve).collect())
                .collect(),
            repeated: self.repeated,
        }
    }
}

/// Where `key`'s text is: its place in the input (at `input`'s address, of `input`'s length)
/// when it is a slice of it, else a copy at `from` in `owned` (replacing the object's last key).
fn place(input: (usize, usize), owned: &mut String, from: usize, key: &str) -> Text {
    let (base, len) = input;
    if let Some(at) = key.as_ptr().addr().checked_sub(base)
        && at.checked_add(key.len()).is_some_and(|end| end <= len)
    {
        return Text::Input(at, key.len());
    }
    owned.truncate(from);
    owned.push_str(key);
    Text::Owned(from, key.len())
}

// The hooks the wrappers call, only while tracking: not generic, not inlined into every decoder.

#[inline(never)]
fn hook_key(key: &str) {
    with_state(|s| s.note_key(key));
}

#[inline(never)]
fn hook_open_object() {
    with_state(|s| {
        let frame = Frame::Object {
            start: s.prints.len(),
            owned: s.owned.len(),
            last: None,
            large: None,
        };
        s.open(frame);
    });
}

#[inline(never)]
fn hook_open_list() {
    with_state(|s| s.open(Frame::List(None)));
}

#[inline(never)]
fn hook_close() {
    with_state(State::close);
}

#[inline(never)]
fn hook_next_index() {
    with_state(State::next_index);
}

#[inline(never)]
fn hook_unknown() {
    with_state(|s| {
        let path = s.path();
        s.unknown.push(path);
    });
}

/// Run `read` (a list's or an object's visitor) with its frame open (when tracking).
#[cfg_attr(not(target_family = "wasm"), inline)]
fn framed<R>(open: fn(), read: impl FnOnce() -> R) -> R {
    let on = on();
    if on {
        open();
    }
    let out = read();
    if on {
        hook_close();
    }
    out
}

/// Decode JSON text into `T` like `serde_json::from_str`, through the one deserializer type.
pub(crate) fn from_str<'de, T: de::Deserialize<'de>>(text: &'de str) -> Result<T, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(Tracked(&mut de))?;
    de.end()?;
    Ok(value)
}

/// [`from_str`], noting the fields `T` skips and the keys repeated within an object.
pub(crate) fn from_str_tracked<'de, T: de::Deserialize<'de>>(
    text: &'de str,
) -> (Result<T, serde_json::Error>, Report) {
    /// Switches tracking off again however the decoding ends.
    struct Off(bool);
    impl Drop for Off {
        fn drop(&mut self) {
            ON.set(self.0);
        }
    }
    let mut fresh = State::new();
    fresh.input = (text.as_ptr().addr(), text.len());
    let saved = with_state(|s| std::mem::replace(s, fresh));
    let off = Off(ON.replace(true));
    let out = from_str(text);
    drop(off);
    let state = with_state(|s| std::mem::replace(s, saved));
    (out, state.into_report(text))
}

/// serde_json's deserializer (or any), its visitors wrapped to report to the tracking.
pub(crate) struct Tracked<D>(D);

/// A visitor, seed or access wrapped to report to the tracking.
struct Wrap<X>(X);

/// `Deserializer` methods that hand the inner deserializer the visitor wrapped in `$wrap`.
macro_rules! forward_deserialize {
    ($wrap:ident; $($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[cfg_attr(not(target_family = "wasm"), inline)]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method($($arg,)* $wrap(visitor))
        }
    )*};
}

/// [`forward_deserialize`] for every `Deserializer` method but `deserialize_ignored_any`.
macro_rules! forward_deserialize_all {
    ($wrap:ident) => {
        forward_deserialize! { $wrap;
            deserialize_any();
            deserialize_bool();
            deserialize_i8();
            deserialize_i16();
            deserialize_i32();
            deserialize_i64();
            deserialize_i128();
            deserialize_u8();
            deserialize_u16();
            deserialize_u32();
            deserialize_u64();
            deserialize_u128();
            deserialize_f32();
            deserialize_f64();
            deserialize_char();
            deserialize_str();
            deserialize_string();
            deserialize_bytes();
            deserialize_byte_buf();
            deserialize_option();
            deserialize_unit();
            deserialize_unit_struct(name: &'static str);
            deserialize_newtype_struct(name: &'static str);
            deserialize_seq();
            deserialize_tuple(len: usize);
            deserialize_tuple_struct(name: &'static str, len: usize);
            deserialize_map();
            deserialize_struct(name: &'static str, fields: &'static [&'static str]);
            deserialize_enum(name: &'static str, variants: &'static [&'static str]);
            deserialize_identifier();
        }
    };
}

/// `expecting` and the byte, `none` and `unit` `Visitor` methods, handed on to the wrapped
/// visitor.
macro_rules! forward_bytes_and_units {
    () => {
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.expecting(f)
        }

        forward_visit! {
            visit_bytes(&[u8]);
            visit_borrowed_bytes(&'de [u8]);
            visit_byte_buf(Vec<u8>);
        }

        #[cfg_attr(not(target_family = "wasm"), inline)]
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            self.0.visit_none()
        }

        #[cfg_attr(not(target_family = "wasm"), inline)]
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            self.0.visit_unit()
        }
    };
}

/// Calls `$m!` with every scalar `Visitor` method but the strings and bytes.
macro_rules! scalar_visits {
    ($m:ident) => {
        $m! {
            visit_bool(bool);
            visit_i8(i8);
            visit_i16(i16);
            visit_i32(i32);
            visit_i64(i64);
            visit_i128(i128);
            visit_u8(u8);
            visit_u16(u16);
            visit_u32(u32);
            visit_u64(u64);
            visit_u128(u128);
            visit_f32(f32);
            visit_f64(f64);
            visit_char(char);
        }
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Tracked<D> {
    type Error = D::Error;

    forward_deserialize_all!(Wrap);

    /// A value the type skips: an unknown field. Noted at its path, then read for repeated keys
    /// (an unknown field's own contents are not looked into for unknown fields).
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        if !on() {
            return self.0.deserialize_ignored_any(Wrap(visitor));
        }
        hook_unknown();
        self.0.deserialize_any(Skip)?;
        visitor.visit_unit()
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// `Visitor` methods that hand the value on to the wrapped visitor.
macro_rules! forward_visit {
    ($($method:ident($ty:ty);)*) => {$(
        #[cfg_attr(not(target_family = "wasm"), inline)]
        fn $method<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
            self.0.$method(v)
        }
    )*};
}

impl<'de, X: Visitor<'de>> Visitor<'de> for Wrap<X> {
    type Value = X::Value;

    scalar_visits!(forward_visit);

    forward_visit! {
        visit_str(&str);
        visit_borrowed_str(&'de str);
        visit_string(String);
    }

    forward_bytes_and_units!();

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<X::Value, D::Error> {
        self.0.visit_some(Tracked(de))
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<X::Value, D::Error> {
        self.0.visit_newtype_struct(Tracked(de))
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<X::Value, A::Error> {
        framed(hook_open_list, || self.0.visit_seq(List(seq)))
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<X::Value, A::Error> {
        framed(hook_open_object, || self.0.visit_map(Wrap(map)))
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<X::Value, A::Error> {
        self.0.visit_enum(Wrap(data))
    }
}

/// A list's elements, each counted (when tracking).
struct List<A>(A);

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for List<A> {
    type Error = A::Error;

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, A::Error> {
        if on() {
            hook_next_index();
        }
        self.0.next_element_seed(Wrap(seed))
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// An object's entries: each key noted (the key visitor does), each value read tracked.
impl<'de, A: MapAccess<'de>> MapAccess<'de> for Wrap<A> {
    type Error = A::Error;

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(Key(seed))
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.0.next_value_seed(Wrap(seed))
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Wrap<S> {
    type Value = S::Value;

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Tracked(de))
    }
}

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Wrap<A> {
    type Error = A::Error;
    type Variant = Wrap<A::Variant>;

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self::Variant), A::Error> {
        let (value, variant) = self.0.variant_seed(seed)?;
        Ok((value, Wrap(variant)))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Wrap<A> {
    type Error = A::Error;

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, A::Error> {
        self.0.newtype_variant_seed(Wrap(seed))
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Wrap(visitor))
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(fields, Wrap(visitor))
    }
}

// ---- map keys ----------------------------------------------------------------------------------

/// A key seed whose key's text is noted (when tracking).
struct Key<K>(K);

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for Key<K> {
    type Value = K::Value;

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<K::Value, D::Error> {
        self.0.deserialize(KeyDe(de))
    }
}

/// The key's deserializer, its visitor wrapped to note the text.
struct KeyDe<D>(D);

/// A key visitor noting the key's text.
struct KeyVisitor<V>(V);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyDe<D> {
    type Error = D::Error;

    forward_deserialize_all!(KeyVisitor);
    forward_deserialize! { KeyVisitor; deserialize_ignored_any(); }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// Note a key's text (when tracking).
#[cfg_attr(not(target_family = "wasm"), inline)]
fn capture(key: &str) {
    if on() {
        hook_key(key);
    }
}

/// `Visitor` methods that note the key's text (when tracking) and hand it on.
macro_rules! forward_key_visit {
    ($($method:ident($ty:ty);)*) => {$(
        #[cfg_attr(not(target_family = "wasm"), inline)]
        fn $method<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
            if on() {
                hook_key(&v.to_string());
            }
            self.0.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVisitor<V> {
    type Value = V::Value;

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        capture(v);
        self.0.visit_borrowed_str(v)
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        capture(v);
        self.0.visit_str(v)
    }

    #[cfg_attr(not(target_family = "wasm"), inline)]
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        capture(&v);
        self.0.visit_string(v)
    }

    scalar_visits!(forward_key_visit);

    forward_bytes_and_units!();
}

// ---- the contents of a skipped field: only repeated keys ----------------------------------------

/// Reads a value the type skips, noting only a repeated key in it.
struct Skip;

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
}

/// A key of a skipped object, noted.
struct SkipKey;

impl<'de> DeserializeSeed<'de> for SkipKey {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for SkipKey {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        hook_key(v);
        Ok(())
    }
}

impl<'de> Visitor<'de> for Skip {
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
        hook_open_list();
        loop {
            hook_next_index();
            if seq.next_element_seed(Skip)?.is_none() {
                break;
            }
        }
        hook_close();
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        hook_open_object();
        while map.next_key_seed(SkipKey)?.is_some() {
            map.next_value_seed(Skip)?;
        }
        hook_close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::Pod;
    use serde::de::DeserializeOwned;

    use super::*;
    use crate::json_path::render_path;

    /// A tracked decoding: the object or the error, the unknown fields, whether a key repeated.
    fn tracked<T: DeserializeOwned>(json: &str) -> (Result<T, String>, Vec<String>, bool) {
        let (out, report) = from_str_tracked::<T>(json);
        let unknown = report.unknown.iter().map(|p| render_path(p)).collect();
        (out.map_err(|e| e.to_string()), unknown, report.repeated)
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
    fn prints_tell_apart_every_key_of_up_to_16_bytes() {
        // Keys of every length to 17 bytes and each one byte off: no two share a print.
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
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                let shared = Print::of(a) == Print::of(b);
                assert!(!shared || a.len() > 16, "{a:?} {b:?}");
            }
            assert_eq!(Print::of(a), Print::of(&a.clone()));
        }
        // Many distinct keys in one object (past the set) and in lists: no repeat noted.
        let labels: Vec<String> = keys
            .iter()
            .filter(|k| k.len() <= 16)
            .map(|k| format!("\"{k}\":\"v\""))
            .collect();
        let text = format!(r#"{{"metadata":{{"labels":{{{}}}}}}}"#, labels.join(","));
        let (out, unknown, repeated) = tracked::<Pod>(&text);
        assert!(out.is_ok() && unknown.is_empty() && !repeated);
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
