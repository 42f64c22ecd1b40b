//! `nodwyn-text`: how text nodwyn did not write (file contents and names, an agent's input, a
//! script's output) reaches a person's terminal.
//!
//! A terminal obeys what it is sent: `ESC [ 1 A` moves the cursor up, `CR` and `ESC [ 2 K` erase
//! a line, OSC 52 writes the clipboard, OSC 8 hides a link behind text, and Unicode's bidi
//! controls (U+202E) and zero-width characters make what is read differ from what is there. So
//! every such character is shown as a visible escape (`\u{1b}`), never sent: C0 and C1 controls
//! (the start of every CSI, OSC and DCS sequence among them), DEL, bidi controls and marks, and
//! the invisible formatting characters. Text keeps its line breaks and tabs where it is shown as
//! lines ([`escape_lines`], [`EscapingWriter`]); a single field shows them too ([`escape_line`]).
//! JSON output carries text unchanged: a program reads it, not a terminal.

use std::fmt::Write as _;
use std::io::Write;

/// Whether `c` must be shown as an escape rather than sent to a terminal.
pub fn is_hidden_or_active(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00ad}'                  // soft hyphen
            | '\u{061c}'                // Arabic letter mark
            | '\u{180e}'                // Mongolian vowel separator
            | '\u{200b}'..='\u{200f}'   // zero-width space, joiners, LRM, RLM
            | '\u{2028}'..='\u{202e}'   // line and paragraph separators, bidi embeddings and overrides
            | '\u{2060}'..='\u{2064}'   // word joiner, invisible operators
            | '\u{2066}'..='\u{206f}'   // bidi isolates, deprecated format characters
            | '\u{feff}'                // zero-width no-break space
            | '\u{fff9}'..='\u{fffb}'   // interlinear annotations
            | '\u{034f}'                // combining grapheme joiner
            | '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}' // Hangul fillers, blank
            | '\u{fe00}'..='\u{fe0d}'   // variation selectors (not the emoji ones, fe0e and fe0f)
            | '\u{e0000}'..='\u{e007f}' // tag characters, which spell ASCII invisibly
            | '\u{e0100}'..='\u{e01ef}' // variation selectors supplement
        )
}

/// `line` trimmed and cut to at most `longest` characters, `…` added where it was cut (a commit's
/// subject in a sentence, a task named in a note).
pub fn shortened(line: &str, longest: usize) -> String {
    let line = line.trim();
    let mut short: String = line.chars().take(longest).collect();
    if line.chars().count() > longest {
        short.push('…');
    }
    short
}

/// `text` as one line: every character [`is_hidden_or_active`], line breaks and tabs included,
/// shown as `\u{..}`.
pub fn escape_line(text: &str) -> String {
    escape(text, false)
}

/// `text` as lines: as [`escape_line`], but line feeds and tabs are kept (a carriage return is
/// escaped: it would return to the start of the line and let what follows overwrite it).
pub fn escape_lines(text: &str) -> String {
    escape(text, true)
}

fn escape(text: &str, keep_lines: bool) -> String {
    if !text.chars().any(is_hidden_or_active) {
        return text.to_owned();
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_hidden_or_active(c) && !(keep_lines && matches!(c, '\n' | '\t')) {
            let _ = write!(shown, "\\u{{{:x}}}", c as u32);
        } else {
            shown.push(c);
        }
    }
    shown
}

/// A writer that passes text on with [`escape_lines`] applied, for a stream of output (a
/// script's `display`). Bytes that are not UTF-8 are shown as `\x..`; a character split across
/// two writes is held until it is whole.
pub struct EscapingWriter<W: Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: Write> EscapingWriter<W> {
    /// Escapes what is written before passing it to `inner`.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            pending: Vec::new(),
        }
    }
}

impl<W: Write> Write for EscapingWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(bytes);
        let mut shown = String::new();
        let mut rest: &[u8] = &self.pending;
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    shown.push_str(&escape_lines(text));
                    rest = &[];
                    break;
                }
                Err(error) => {
                    let (valid, after) = rest.split_at(error.valid_up_to());
                    shown.push_str(&escape_lines(
                        std::str::from_utf8(valid).unwrap_or_default(),
                    ));
                    match error.error_len() {
                        // Not UTF-8: shown byte by byte.
                        Some(bad) => {
                            for byte in &after[..bad] {
                                let _ = write!(shown, "\\x{byte:02x}");
                            }
                            rest = &after[bad..];
                        }
                        // The start of a character whose end has not come yet.
                        None => {
                            rest = after;
                            break;
                        }
                    }
                }
            }
        }
        self.pending = rest.to_vec();
        self.inner.write_all(shown.as_bytes())?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_shortened_by_characters_and_says_it_was() {
        assert_eq!(shortened("  fix the test  ", 60), "fix the test");
        assert_eq!(shortened("abcdef", 3), "abc…");
        assert_eq!(shortened("ééé", 3), "ééé");
        assert_eq!(shortened("éééé", 3), "ééé…");
    }

    #[test]
    fn escape_sequences_bidi_and_invisible_characters_are_shown() {
        assert_eq!(escape_line("(a)\u{1b}[2K\r(b)"), "(a)\\u{1b}[2K\\u{d}(b)");
        assert_eq!(escape_line("a\nb\tc"), "a\\u{a}b\\u{9}c");
        assert_eq!(escape_lines("a\nb\tc\r"), "a\nb\tc\\u{d}");
        assert_eq!(
            escape_lines("user\u{202e}txt.exe\u{200b}"),
            "user\\u{202e}txt.exe\\u{200b}"
        );
        // C1 controls (the 8-bit CSI), DEL and OSC's terminator.
        assert_eq!(
            escape_lines("\u{9b}2J\u{7f}\u{7}"),
            "\\u{9b}2J\\u{7f}\\u{7}"
        );
        assert_eq!(escape_lines("plain text, é, 日本"), "plain text, é, 日本");
        // Text hidden in tag characters and variation selectors; emoji keep theirs.
        assert_eq!(
            escape_lines("main.rs\u{e0020}\u{e0065}\u{e0101}\u{3164}"),
            "main.rs\\u{e0020}\\u{e0065}\\u{e0101}\\u{3164}"
        );
        assert_eq!(escape_lines("\u{2764}\u{fe0f}"), "\u{2764}\u{fe0f}");
    }

    #[test]
    fn the_writer_escapes_a_stream_whatever_its_cuts() {
        let mut out = EscapingWriter::new(Vec::new());
        let text = "é\u{1b}]52;c;aGk=\u{7}ok\n".as_bytes();
        for byte in text {
            out.write_all(std::slice::from_ref(byte)).unwrap();
        }
        out.write_all(b"\xff!").unwrap();
        assert_eq!(
            String::from_utf8(out.inner).unwrap(),
            "é\\u{1b}]52;c;aGk=\\u{7}ok\n\\xff!"
        );
    }
}
