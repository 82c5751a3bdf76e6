//! Small helpers shared by the Pod validation modules.

/// The string in an optional field, or `""` (Go's zero value, which is what upstream validates).
pub(crate) fn opt_str(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("")
}

/// A list's items, or an empty slice.
pub(crate) fn items<T>(v: &Option<Vec<T>>) -> &[T] {
    v.as_deref().unwrap_or(&[])
}

/// A test expectation: error type, field path, origin.
#[cfg(test)]
pub(crate) type Want = (podmut_model::field::ErrorType, &'static str, &'static str);

/// What the unit tests compare of an error list: each error's type, field path and origin.
#[cfg(test)]
pub(crate) type Summary = Vec<(podmut_model::field::ErrorType, String, &'static str)>;

/// The [`Summary`] of an error list.
#[cfg(test)]
pub(crate) fn summary(errs: &podmut_model::field::ErrorList) -> Summary {
    errs.iter()
        .map(|e| (e.error_type, e.field.to_string(), e.origin))
        .collect()
}

/// The [`Summary`] a test expects.
#[cfg(test)]
pub(crate) fn wanted(want: &[Want]) -> Summary {
    want.iter().map(|(t, f, o)| (*t, (*f).to_owned(), *o)).collect()
}
