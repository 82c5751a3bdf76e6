//! Strategic merge patch, applied the way the API server applies `kubectl patch` (default type)
//! and controllers' patches: upstream `strategicpatch.StrategicMergeMapPatch` with
//! `MergeParallelList` and `IgnoreUnmatchedNulls` (k8s.io/apimachinery v0.36
//! `pkg/util/strategicpatch/patch.go`, the apply half).
//!
//! Written by hand because no Rust library implements it for Pods: the JSON merge patch crates do
//! RFC 7386 only, which replaces every list, while a strategic patch merges `containers` by name,
//! `ports` by `containerPort`, `volumeMounts` by `mountPath`, ... (see [`super::schema`]) and
//! understands `$patch: delete|replace`, `$retainKeys`, `$setElementOrder/<list>` and
//! `$deleteFromPrimitiveList/<list>`. Errors use upstream's wording, which kubectl prints as is
//! (`map: map[image:x] does not contain declared merge key: name`).
//!
//! Upstream mutates Go maps in place and iterates them in random order; this works on owned
//! `serde_json` values in key order (`$deleteFromPrimitiveList/x` sorts before `x`). The results
//! agree: the keys of one map never depend on each other except through the directives, which
//! upstream also handles first.

use serde_json::{Map, Value};

use super::schema::{Field, Schema, Strategy};

const DIRECTIVE: &str = "$patch";
const DELETE: &str = "delete";
const REPLACE: &str = "replace";
const MERGE: &str = "merge";
const RETAIN_KEYS: &str = "$retainKeys";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";
const SET_ELEMENT_ORDER: &str = "$setElementOrder";

/// Why a strategic merge patch cannot be applied (upstream's message).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct StrategicError(pub String);

type Result<T> = std::result::Result<T, StrategicError>;

fn err<T>(message: impl Into<String>) -> Result<T> {
    Err(StrategicError(message.into()))
}

/// Apply `patch` to `original` with `schema`'s patch metadata (for a Pod: [`super::schema::POD`]).
pub(crate) fn apply(
    original: Map<String, Value>,
    patch: Map<String, Value>,
    schema: &Schema,
) -> Result<Map<String, Value>> {
    merge_map(original, patch, schema)
}

/// upstream `mergeMap`.
fn merge_map(
    mut original: Map<String, Value>,
    mut patch: Map<String, Value>,
    schema: &Schema,
) -> Result<Map<String, Value>> {
    if let Some(directive) = patch.get(DIRECTIVE) {
        let directive = directive.clone();
        return directive_in_map(&directive, patch);
    }
    apply_retain_keys(&mut original, &mut patch)?;
    merge_ordered_lists(&mut original, &mut patch, schema)?;
    for (key, mut patch_value) in patch {
        let (key, is_delete_list) = match key.strip_prefix(DELETE_FROM_PRIMITIVE_LIST) {
            Some(rest) => (list_key(rest, &key, DELETE_FROM_PRIMITIVE_LIST)?, true),
            None => (key, false),
        };
        // IgnoreUnmatchedNulls: a null deletes the key, and is dropped when nothing matches.
        if patch_value.is_null() {
            original.remove(&key);
            continue;
        }
        let Some(original_value) = original.remove(&key) else {
            if !is_delete_list {
                discard_nulls(&mut patch_value);
                if let Some(v) = remove_directives(patch_value) {
                    original.insert(key, v);
                }
            }
            continue;
        };
        if !same_kind(&original_value, &patch_value) {
            if is_delete_list {
                original.insert(key, original_value);
            } else {
                discard_nulls(&mut patch_value);
                if let Some(v) = remove_directives(patch_value) {
                    original.insert(key, v);
                }
            }
            continue;
        }
        let field = schema.field(&key);
        let merged = match (original_value, patch_value) {
            (Value::Object(o), Value::Object(p)) => Value::Object(merge_map(o, p, field.schema)?),
            (Value::Array(o), Value::Array(p)) => {
                Value::Array(merge_list_field(o, p, field, is_delete_list)?)
            }
            (_, p) => match remove_directives(p) {
                Some(v) => v,
                None => continue,
            },
        };
        original.insert(key, merged);
    }
    Ok(original)
}

/// upstream `handleDirectiveInMergeMap`: `$patch: replace` takes the patch as is, `delete` leaves an
/// empty map.
fn directive_in_map(directive: &Value, mut patch: Map<String, Value>) -> Result<Map<String, Value>> {
    match directive.as_str() {
        Some(REPLACE) => {
            patch.remove(DIRECTIVE);
            Ok(patch)
        }
        Some(DELETE) => Ok(Map::new()),
        _ => err(bad_patch_type(directive, &patch)),
    }
}

fn bad_patch_type(directive: &Value, map: &Map<String, Value>) -> String {
    format!(
        "unknown patch type: {} in map: {}",
        go_value(directive),
        go_map(map)
    )
}

/// `$deleteFromPrimitiveList/<key>` and `$setElementOrder/<key>` name their list after a slash.
fn list_key(rest: &str, whole: &str, prefix: &str) -> Result<String> {
    match rest.strip_prefix('/') {
        Some(k) => Ok(k.to_owned()),
        None if prefix == DELETE_FROM_PRIMITIVE_LIST => err("invalid patch format of primitive list"),
        None if prefix == SET_ELEMENT_ORDER => err("invalid patch format of setElementOrder list"),
        None => err(format!("fail to find unknown prefix {prefix:?} in {whole}")),
    }
}

/// upstream `applyRetainKeysDirective`: keep only the listed keys of the original; every key the
/// patch sets must be listed.
fn apply_retain_keys(original: &mut Map<String, Value>, patch: &mut Map<String, Value>) -> Result<()> {
    let Some(retain) = patch.remove(RETAIN_KEYS) else {
        return Ok(());
    };
    let Value::Array(retain) = retain else {
        return err("invalid patch format of retainKeys");
    };
    let listed = |k: &str| retain.iter().any(|v| v.as_str() == Some(k));
    for (k, v) in patch.iter() {
        if v.is_null() || k.starts_with(DELETE_FROM_PRIMITIVE_LIST) || k.starts_with(SET_ELEMENT_ORDER) {
            continue;
        }
        if !listed(k) {
            return err("invalid patch format of retainKeys");
        }
    }
    original.retain(|k, _| listed(k));
    Ok(())
}

/// upstream `mergePatchIntoOriginal`: each `$setElementOrder/<list>` is merged together with its
/// list, then the result is ordered by the directive (which wins over the patch's and the live
/// object's order).
fn merge_ordered_lists(
    original: &mut Map<String, Value>,
    patch: &mut Map<String, Value>,
    schema: &Schema,
) -> Result<()> {
    let keys: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(SET_ELEMENT_ORDER))
        .cloned()
        .collect();
    for directive_key in keys {
        let Some(order) = patch.remove(&directive_key) else {
            continue;
        };
        let Value::Array(order) = order else {
            return err(format!(
                "expected a []interface {{}}, but received a {}",
                go_type(&order)
            ));
        };
        let list = list_key(
            &directive_key[SET_ELEMENT_ORDER.len()..],
            &directive_key,
            SET_ELEMENT_ORDER,
        )?;
        let original_list = take_list(original, &list)?;
        let patch_list = take_list(patch, &list)?;
        let field = schema.field(&list);
        let merge_key = field.merge_key.unwrap_or("");
        validate_with_order(patch_list.as_deref().unwrap_or(&[]), &order, merge_key)?;
        let mut server_order = original_list.clone().unwrap_or_default();
        let patch_copy = patch_list.clone().unwrap_or_default();
        let merged = match (original_list, patch_list) {
            (Some(o), None) => o,
            (None, Some(p)) => match remove_directives(Value::Array(p)) {
                Some(Value::Array(v)) => v,
                _ => continue,
            },
            (Some(o), Some(p)) => {
                let (merged, view) = merge_list_field_viewed(o, p, field, false)?;
                server_order = view;
                merged
            }
            (None, None) => continue,
        };
        let (in_order, server_only) = partition(merged, &order, merge_key)?;
        let kind = element_kind(&[&server_order, &patch_copy])?;
        let both = normalize_order(in_order, server_only, &order, &server_order, merge_key, kind)?;
        original.insert(list, Value::Array(both));
    }
    Ok(())
}

fn take_list(map: &mut Map<String, Value>, key: &str) -> Result<Option<Vec<Value>>> {
    match map.remove(key) {
        None => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a)),
        Some(other) => err(format!(
            "expected a []interface {{}}, but received a {}",
            go_type(&other)
        )),
    }
}

/// upstream `validatePatchWithSetOrderList`: the patch list's items (deletions aside) appear in the
/// order list, in the same relative order.
fn validate_with_order(patch_list: &[Value], order: &[Value], merge_key: &str) -> Result<()> {
    if order.is_empty() || patch_list.is_empty() {
        return Ok(());
    }
    let mut kept = Vec::new();
    for item in patch_list {
        if merge_key.is_empty() {
            kept.push(item);
            continue;
        }
        let Value::Object(m) = item else {
            return err(format!(
                "expected a map[string]interface {{}}, but received a {}",
                go_type(item)
            ));
        };
        if m.get(DIRECTIVE).and_then(Value::as_str) != Some(DELETE) {
            kept.push(item);
        }
    }
    let (mut p, mut o) = (0, 0);
    while p < kept.len() && o < order.len() {
        if has_directive(kept[p]) {
            p += 1;
            continue;
        }
        if merge_key_equal(kept[p], &order[o], merge_key)? {
            p += 1;
        }
        o += 1;
    }
    if p < kept.len() && o >= order.len() {
        return err(format!(
            "the order in patch list:\n{}\n doesn't match {SET_ELEMENT_ORDER} list:\n{}",
            go_list(patch_list),
            go_list(order)
        ));
    }
    Ok(())
}

fn has_directive(v: &Value) -> bool {
    v.as_object().is_some_and(|m| m.contains_key(DIRECTIVE))
}

fn merge_key_equal(left: &Value, right: &Value, merge_key: &str) -> Result<bool> {
    if merge_key.is_empty() {
        return Ok(scalar_eq(left, right));
    }
    let (Value::Object(l), Value::Object(r)) = (left, right) else {
        let bad = if left.is_object() { right } else { left };
        return err(format!(
            "expected a map[string]interface {{}}, but received a {}",
            go_type(bad)
        ));
    };
    let lv = l.get(merge_key).ok_or_else(|| no_merge_key(l, merge_key))?;
    let rv = r.get(merge_key).ok_or_else(|| no_merge_key(r, merge_key))?;
    Ok(scalar_eq(lv, rv))
}

fn no_merge_key(map: &Map<String, Value>, key: &str) -> StrategicError {
    StrategicError(format!(
        "map: {} does not contain declared merge key: {key}",
        go_map(map)
    ))
}

/// upstream `mergeSliceHandler`: merge when the field says so (or for a deletion list), else take
/// the patch's list.
fn merge_list_field(
    original: Vec<Value>,
    patch: Vec<Value>,
    field: Field,
    is_delete_list: bool,
) -> Result<Vec<Value>> {
    Ok(merge_list_field_viewed(original, patch, field, is_delete_list)?.0)
}

/// [`merge_list_field`], also returning what the original list's Go backing array reads after the
/// merge (see [`Backing`]).
fn merge_list_field_viewed(
    original: Vec<Value>,
    patch: Vec<Value>,
    field: Field,
    is_delete_list: bool,
) -> Result<(Vec<Value>, Vec<Value>)> {
    if field.strategy == Strategy::Merge || is_delete_list {
        merge_list(original, patch, field, is_delete_list)
    } else {
        Ok((patch, original))
    }
}

/// Whether the list holds objects or scalars (upstream `sliceElementType`'s kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Object,
    Scalar,
}

/// What the original list's Go slice reads after upstream merged into it.
///
/// Upstream deletes `$patch: delete` matches in place (`append(s[:i], s[i+1:]...)`, which leaves
/// the last element duplicated) and appends new items into the capacity that frees. The
/// `$setElementOrder` step then orders by that same slice, so these effects decide where
/// server-only items land (upstream's own fixtures depend on it); this replays them.
#[derive(Debug)]
struct Backing {
    view: Vec<Value>,
    len: usize,
}

impl Backing {
    fn new(original: &[Value]) -> Self {
        Self {
            view: original.to_vec(),
            len: original.len(),
        }
    }

    fn delete(&mut self, i: usize) {
        if i < self.len {
            for j in i..self.len - 1 {
                self.view[j] = self.view[j + 1].clone();
            }
            self.len -= 1;
        }
    }

    fn append(&mut self, v: &Value) {
        if self.len < self.view.len() {
            self.view[self.len] = v.clone();
        }
        self.len += 1;
    }
}

/// upstream `mergeSlice`; also returns the backing view of the original ([`Backing`]).
fn merge_list(
    original: Vec<Value>,
    patch: Vec<Value>,
    field: Field,
    is_delete_list: bool,
) -> Result<(Vec<Value>, Vec<Value>)> {
    if original.is_empty() && patch.is_empty() {
        return Ok((original, Vec::new()));
    }
    let kind = element_kind(&[&original, &patch])?;
    if kind == Kind::Scalar {
        if is_delete_list {
            let kept = original
                .iter()
                .filter(|v| !patch.iter().any(|d| scalar_eq(v, d)))
                .cloned()
                .collect();
            return Ok((kept, original));
        }
        let mut both = original.clone();
        both.extend(patch.iter().cloned());
        let merged = dedup_scalars(both);
        let (in_patch, server_only) = partition(merged, &patch, "")?;
        let out = normalize_order(in_patch, server_only, &patch, &original, "", kind)?;
        return Ok((out, original));
    }
    let Some(merge_key) = field.merge_key else {
        return err(format!(
            "cannot merge lists without merge key for {}",
            field.schema.name
        ));
    };
    let mut backing = Backing::new(&original);
    let (original, patch, aliased) = special_elements(original, patch, merge_key, &mut backing)?;
    let merged = merge_by_key(
        original.clone(),
        &patch,
        merge_key,
        field.schema,
        aliased.then_some(&mut backing),
    )?;
    let (in_patch, server_only) = partition(merged, &patch, merge_key)?;
    let out = normalize_order(in_patch, server_only, &patch, &original, merge_key, kind)?;
    Ok((out, backing.view))
}

/// upstream `mergeSliceWithSpecialElements`: `$patch: delete` items remove their match from the
/// original, `$patch: replace` makes the patch's other items the whole list. The flag says whether
/// the returned original is still the given one (false after a replace).
fn special_elements(
    mut original: Vec<Value>,
    patch: Vec<Value>,
    merge_key: &str,
    backing: &mut Backing,
) -> Result<(Vec<Value>, Vec<Value>, bool)> {
    let mut plain = Vec::new();
    let mut replace = false;
    for item in patch {
        let Value::Object(m) = &item else {
            plain.push(item);
            continue;
        };
        let Some(directive) = m.get(DIRECTIVE) else {
            plain.push(item);
            continue;
        };
        match directive.as_str() {
            Some(DELETE) => {
                let value = m.get(merge_key).ok_or_else(|| no_merge_key(m, merge_key))?;
                while let Some(i) = find_by_key(&original, merge_key, value)? {
                    original.remove(i);
                    backing.delete(i);
                }
            }
            Some(REPLACE) => replace = true,
            Some(MERGE) => return err("merging lists cannot yet be specified in the patch"),
            _ => return err(bad_patch_type(directive, m)),
        }
    }
    Ok(if replace {
        (plain, Vec::new(), false)
    } else {
        (original, plain, true)
    })
}

/// upstream `mergeSliceWithoutSpecialElements`: each patch item merges into the original item
/// with the same key, or is appended.
fn merge_by_key(
    mut original: Vec<Value>,
    patch: &[Value],
    merge_key: &str,
    schema: &Schema,
    mut backing: Option<&mut Backing>,
) -> Result<Vec<Value>> {
    for item in patch {
        let Value::Object(p) = item else {
            return err(format!(
                "expected a map[string]interface {{}}, but received a {}",
                go_type(item)
            ));
        };
        let value = p.get(merge_key).ok_or_else(|| no_merge_key(p, merge_key))?;
        match find_by_key(&original, merge_key, value)? {
            Some(i) => {
                let Value::Object(o) = std::mem::take(&mut original[i]) else {
                    return err(format!("value for key {i} is not a map"));
                };
                original[i] = Value::Object(merge_map(o, p.clone(), schema)?);
            }
            None => {
                if let Some(b) = backing.as_deref_mut() {
                    b.append(item);
                }
                original.push(item.clone());
            }
        }
    }
    Ok(original)
}

/// upstream `findMapInSliceBasedOnKeyValue`.
fn find_by_key(list: &[Value], merge_key: &str, value: &Value) -> Result<Option<usize>> {
    for (i, v) in list.iter().enumerate() {
        let Value::Object(m) = v else {
            return err(format!("value for key {i} is not a map"));
        };
        if m.get(merge_key).is_some_and(|k| scalar_eq(k, value)) {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// Split `merged` into the items present in `by` and the rest: by merge key, or by value without
/// one (upstream `partitionMapsByPresentInList` / `partitionPrimitivesByPresentInList`).
fn partition(merged: Vec<Value>, by: &[Value], merge_key: &str) -> Result<(Vec<Value>, Vec<Value>)> {
    let mut present = Vec::new();
    let mut rest = Vec::new();
    for v in merged {
        let found = if merge_key.is_empty() {
            by.iter().any(|b| scalar_eq(b, &v))
        } else {
            let Value::Object(m) = &v else {
                return err(format!(
                    "expected a map[string]interface {{}}, but received a {}",
                    go_type(&v)
                ));
            };
            let value = m.get(merge_key).ok_or_else(|| no_merge_key(m, merge_key))?;
            find_by_key(by, merge_key, value)?.is_some()
        };
        if found {
            present.push(v);
        } else {
            rest.push(v);
        }
    }
    Ok((present, rest))
}

/// upstream `normalizeElementOrder`: the patch's items in the patch's order, the server-only items
/// in the live order, then interleaved by the live order (`mergeSortedSlice`). An item the live
/// object does not have goes before the server-only item it is compared with, which is why a new
/// container lands before the existing ones (as `kubectl patch` shows).
fn normalize_order(
    mut in_patch: Vec<Value>,
    mut server_only: Vec<Value>,
    patch_order: &[Value],
    server_order: &[Value],
    merge_key: &str,
    kind: Kind,
) -> Result<Vec<Value>> {
    if kind == Kind::Object {
        for list in [
            in_patch.as_slice(),
            server_only.as_slice(),
            patch_order,
            server_order,
        ] {
            for item in list {
                let Value::Object(m) = item else {
                    return err(format!(
                        "expected a map[string]interface {{}}, but received a {}",
                        go_type(item)
                    ));
                };
                if !m.contains_key(merge_key) {
                    return Err(no_merge_key(m, merge_key));
                }
            }
        }
    }
    let position = |order: &[Value], v: &Value| index_of(order, v, merge_key, kind);
    crate::order::sort_by_key(&mut in_patch, |v| position(patch_order, v).unwrap_or(usize::MAX));
    crate::order::sort_by_key(&mut server_only, |v| {
        position(server_order, v).unwrap_or(usize::MAX)
    });
    let mut out = Vec::with_capacity(in_patch.len() + server_only.len());
    let mut left = server_only.into_iter().peekable();
    let mut right = in_patch.into_iter().peekable();
    while let (Some(l), Some(r)) = (left.peek(), right.peek()) {
        let take_left = match (position(server_order, l), position(server_order, r)) {
            (Some(li), Some(ri)) => li < ri,
            _ => false,
        };
        let next = if take_left { left.next() } else { right.next() };
        out.extend(next);
    }
    out.extend(left);
    out.extend(right);
    Ok(out)
}

/// upstream `index`: the position of `v` in `list`, by merge key for objects.
fn index_of(list: &[Value], v: &Value, merge_key: &str, kind: Kind) -> Option<usize> {
    let key_of = |item: &Value| -> Option<Value> {
        match kind {
            Kind::Object => item
                .as_object()
                .map(|m| m.get(merge_key).cloned().unwrap_or(Value::Null)),
            Kind::Scalar => Some(item.clone()),
        }
    };
    let wanted = key_of(v)?;
    list.iter()
        .position(|item| key_of(item).is_some_and(|k| scalar_eq(&k, &wanted)))
}

/// upstream `sliceElementType`: every element of every list has one kind, and is not a list.
fn element_kind(lists: &[&[Value]]) -> Result<Kind> {
    let mut kind: Option<Value> = None;
    for list in lists {
        for v in *list {
            match &kind {
                None => {
                    if v.is_array() {
                        return err("lists of lists are not supported");
                    }
                    kind = Some(v.clone());
                }
                Some(first) if !same_kind(first, v) => {
                    let all: Vec<String> = lists.iter().map(|l| go_list(l)).collect();
                    return err(format!(
                        "list element types are not identical: [{}]",
                        all.join(" ")
                    ));
                }
                Some(_) => {}
            }
        }
    }
    match kind {
        None => err("no elements in any of the given slices"),
        Some(Value::Object(_)) => Ok(Kind::Object),
        Some(_) => Ok(Kind::Scalar),
    }
}

/// upstream `deduplicateScalars` (including its order: a duplicate is replaced by the last item).
fn dedup_scalars(mut s: Vec<Value>) -> Vec<Value> {
    let mut length = s.len();
    let mut i = 0;
    while i + 1 < length {
        let mut j = i + 1;
        while j < length {
            if scalar_eq(&s[i], &s[j]) {
                s.swap(j, length - 1);
                length -= 1;
            } else {
                j += 1;
            }
        }
        i += 1;
    }
    s.truncate(length);
    s
}

/// upstream `removeDirectives`: an object carrying `$patch` is dropped; directives nested in kept
/// values are dropped too.
fn remove_directives(v: Value) -> Option<Value> {
    match v {
        Value::Object(m) => {
            if m.contains_key(DIRECTIVE) {
                return None;
            }
            // Built by inserts: `collect()` into a map sorts first (a copy of the sort routine).
            let mut kept = serde_json::Map::new();
            kept.extend(
                m.into_iter()
                    .filter_map(|(k, v)| remove_directives(v).map(|v| (k, v))),
            );
            Some(Value::Object(kept))
        }
        Value::Array(a) => Some(Value::Array(
            a.into_iter().filter_map(remove_directives).collect(),
        )),
        other => Some(other),
    }
}

/// upstream `discardNullValuesFromPatch`.
fn discard_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, v| !v.is_null());
            m.values_mut().for_each(discard_nulls);
        }
        Value::Array(a) => a.iter_mut().for_each(discard_nulls),
        _ => {}
    }
}

/// Whether two values have the same Go type after JSON decoding (map, slice, string, float64,
/// bool, nil).
fn same_kind(a: &Value, b: &Value) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// Go's `==` on decoded JSON scalars: numbers are all float64.
fn scalar_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// `reflect.TypeOf(v)` as Go prints it.
fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "map[string]interface {}",
        Value::Array(_) => "[]interface {}",
        Value::String(_) => "string",
        Value::Number(_) => "float64",
        Value::Bool(_) => "bool",
        Value::Null => "<nil>",
    }
}

/// A value as Go's `%v` prints a decoded JSON value (`map[image:x name:a]`, `[a b]`).
fn go_value(v: &Value) -> String {
    match v {
        Value::Object(m) => go_map(m),
        Value::Array(a) => go_list(a),
        Value::String(s) => s.clone(),
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), go_float),
        Value::Bool(b) => b.to_string(),
        Value::Null => "<nil>".into(),
    }
}

fn go_map(m: &Map<String, Value>) -> String {
    let mut keys: Vec<&String> = m.keys().collect();
    crate::order::sort(&mut keys);
    let parts: Vec<String> = keys
        .into_iter()
        .map(|k| format!("{k}:{}", go_value(&m[k])))
        .collect();
    format!("map[{}]", parts.join(" "))
}

fn go_list(a: &[Value]) -> String {
    let parts: Vec<String> = a.iter().map(go_value).collect();
    format!("[{}]", parts.join(" "))
}

/// `%v` of a float64: the shortest form, exponents past 1e21.
fn go_float(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e21 {
        format!("{f:.0}")
    } else {
        format!("{f}")
    }
}

#[cfg(test)]
mod tests;
