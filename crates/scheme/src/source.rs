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
    fn place_counts_lines_and_characters_from_one() {
        let source = Source::expression("(a)\n  (é b)\n");
        assert_eq!(source.place(0), "<expression>:1:1");
        assert_eq!(source.place(6), "<expression>:2:3");
        // After the two-byte `é`, the column counts it once.
        assert_eq!(source.place(9), "<expression>:2:5");
        assert_eq!(source.place(10_000), "<expression>:3:1");
    }
}
