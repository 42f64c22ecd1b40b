//! A piece of Scheme with the name it is reported under, and turning a byte offset in it into
//! `name:line:column`.

use std::path::Path;

/// Where a source came from, which decides how far it is trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// nodwyn's own `prompts/prompts.scm`, built into the binary.
    Builtin,
    /// Anything else: the user's and the repository's files, an expression typed for `eval`.
    /// Screened before it is compiled (see [`crate::screen`]).
    Untrusted,
}

/// Scheme text and the name errors in it are reported under.
#[derive(Debug, Clone)]
pub struct Source {
    /// A path, or a label such as `<expression>`.
    pub name: String,
    /// The text.
    pub text: String,
    /// How far it is trusted.
    pub origin: Origin,
}

impl Source {
    /// An untrusted source read from `path` (the caller reads it: this crate touches no files).
    pub fn file(path: &Path, text: String) -> Self {
        Self {
            name: path.display().to_string(),
            text,
            origin: Origin::Untrusted,
        }
    }

    /// An untrusted expression typed by a person, reported as `<expression>`.
    pub fn expression(text: impl Into<String>) -> Self {
        Self {
            name: "<expression>".to_owned(),
            text: text.into(),
            origin: Origin::Untrusted,
        }
    }

    /// `name:line:column` (both from 1) of byte `offset`, columns counted in characters.
    pub fn place(&self, offset: usize) -> String {
        let offset = offset.min(self.text.len());
        let before = &self.text[..floor_char_boundary(&self.text, offset)];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        format!("{}:{line}:{column}", self.name)
    }
}

/// `text` as a Scheme string literal, for source nodwyn writes itself.
pub fn string_literal(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// `value` as a Scheme expression that gives its Scheme form (as [`crate::value::from_json`]
/// makes it: `null` is `#f`, an object an association list with string keys), for source nodwyn
/// writes itself.
pub fn json_literal(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Null | Value::Bool(false) => "#f".to_owned(),
        Value::Bool(true) => "#t".to_owned(),
        Value::Number(number) => number.to_string(),
        Value::String(text) => string_literal(text),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(json_literal).collect();
            format!("(list {})", items.join(" "))
        }
        Value::Object(object) => {
            let entries: Vec<String> = object
                .iter()
                .map(|(key, item)| format!("(cons {} {})", string_literal(key), json_literal(item)))
                .collect();
            format!("(list {})", entries.join(" "))
        }
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_literal_escapes_quotes_and_backslashes() {
        assert_eq!(string_literal(r#"a "b" \c"#), r#""a \"b\" \\c""#);
    }

    #[test]
    fn json_becomes_the_scheme_expression_of_its_value() {
        let value = serde_json::json!({"a": [1, "x\"y", null, true], "b": {"c": 2.5}});
        assert_eq!(
            json_literal(&value),
            r#"(list (cons "a" (list 1 "x\"y" #f #t)) (cons "b" (list (cons "c" 2.5))))"#
        );
    }

    #[test]
    fn place_counts_lines_and_characters_from_one() {
        let source = Source::expression("(a)\n  (é b)\n");
        assert_eq!(source.place(0), "<expression>:1:1");
        assert_eq!(source.place(6), "<expression>:2:3");
        // After the two-byte `é`, the column counts it once.
        assert_eq!(source.place(9), "<expression>:2:5");
        assert_eq!(source.place(10_000), "<expression>:3:1");
    }
}
