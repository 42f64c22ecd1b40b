//! The line `nodwyn chat` reads a message with: on a terminal, a small line editor (the cursor
//! keys move in the line and through the history of earlier messages, kept per repository), with
//! bracketed paste, so a paste of several lines is one message, never several; elsewhere, a plain
//! line of standard input.
//!
//! What arrives while a line is edited ([`Meanwhile`]: another client's turn in the session,
//! through the daemon) is shown between keys: the line is cleared, the terminal put back in its
//! own mode (a question it brings is asked as every question is), and the line drawn again as
//! it was, so nothing typed is lost or mixed into what was shown.
//!
//! Only echo and line buffering are turned off while a line is edited: Ctrl-C still reaches
//! nodwyn as a signal, as it does everywhere else in a conversation, and the terminal's settings
//! are put back when the line is read, however reading it ended.

use std::io::{BufRead, IsTerminal, Write};
use std::os::fd::AsFd;
use std::path::PathBuf;

/// How often the editor looks for what arrived meanwhile while no key is pressed.
const MEANWHILE_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// What may arrive while a line is edited, to be shown between keys.
pub(crate) trait Meanwhile {
    /// Whether something waits to be shown.
    fn waiting(&mut self) -> anyhow::Result<bool>;
    /// Shows what waits, on a terminal in its own mode with the line cleared.
    fn show(&mut self) -> anyhow::Result<()>;
}

/// How many earlier messages the history keeps.
const KEPT: usize = 500;

/// Reads messages, with the history of `file`.
pub(crate) struct LineEditor {
    history: Vec<String>,
    file: Option<PathBuf>,
}

/// What a key did to the line being edited.
enum Edit {
    /// Go on reading.
    More,
    /// The line is done.
    Done,
    /// The input ended (Ctrl-D on an empty line).
    End,
}

/// The line being edited: its characters, the cursor, and where in the history it is.
struct Line {
    chars: Vec<char>,
    cursor: usize,
    /// The history entry shown, counted from the newest (`None`: the line being written).
    recalled: Option<usize>,
    /// The line being written, kept while the history is browsed.
    draft: Vec<char>,
    /// Inside a bracketed paste: every byte is text, a line break too.
    pasting: bool,
}

impl LineEditor {
    /// An editor whose history is kept in `file` (read now, appended to with every message).
    pub(crate) fn new(file: Option<PathBuf>) -> Self {
        let history = file
            .as_ref()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .map(|text| text.lines().map(unescape).collect::<Vec<_>>())
            .unwrap_or_default();
        let skip = history.len().saturating_sub(KEPT);
        Self {
            history: history.into_iter().skip(skip).collect(),
            file,
        }
    }

    /// Reads one message after `prompt` (on stderr), showing what arrives `meanwhile`; `None`
    /// when the input ended.
    pub(crate) fn read(
        &mut self,
        prompt: &str,
        meanwhile: &mut dyn Meanwhile,
    ) -> anyhow::Result<Option<String>> {
        let stdin = std::io::stdin();
        if !(stdin.is_terminal() && std::io::stderr().is_terminal()) {
            let mut stderr = std::io::stderr();
            let _ = write!(stderr, "{prompt}");
            let _ = stderr.flush();
            let mut line = String::new();
            if stdin.lock().read_line(&mut line)? == 0 {
                return Ok(None);
            }
            return Ok(Some(line.trim_end_matches(['\n', '\r']).to_owned()));
        }
        let read = self.edit(prompt, &stdin, meanwhile);
        let mut stderr = std::io::stderr();
        let _ = writeln!(stderr);
        let message = read?;
        if let Some(message) = &message {
            self.remember(message);
        }
        Ok(message)
    }

    /// Edits a line on the terminal until Enter (outside a paste) or the end of the input.
    fn edit(
        &self,
        prompt: &str,
        stdin: &std::io::Stdin,
        meanwhile: &mut dyn Meanwhile,
    ) -> anyhow::Result<Option<String>> {
        let mut line = Line {
            chars: Vec::new(),
            cursor: 0,
            recalled: None,
            draft: Vec::new(),
            pasting: false,
        };
        let mut keys = Keys::default();
        let mut raw = Some(Raw::enter(stdin)?);
        draw(prompt, &line);
        loop {
            // Between keys (never inside an escape sequence), what arrived is shown.
            while keys.pending.is_empty() && !crate::asking::input_waits(stdin, MEANWHILE_POLL) {
                if meanwhile.waiting()? {
                    drop(raw.take());
                    clear_line();
                    meanwhile.show()?;
                    raw = Some(Raw::enter(stdin)?);
                    draw(prompt, &line);
                }
            }
            let Some(key) = keys.next()? else {
                return Ok(None);
            };
            match self.apply(&mut line, key) {
                Edit::More => draw(prompt, &line),
                Edit::Done => return Ok(Some(line.chars.iter().collect())),
                Edit::End => return Ok(None),
            }
        }
    }

    /// What `key` does to `line`.
    fn apply(&self, line: &mut Line, key: Key) -> Edit {
        match key {
            Key::Char(c) => {
                line.chars.insert(line.cursor, c);
                line.cursor += 1;
            }
            Key::Enter if line.pasting => {
                line.chars.insert(line.cursor, '\n');
                line.cursor += 1;
            }
            Key::Enter => return Edit::Done,
            Key::Backspace if line.cursor > 0 => {
                line.cursor -= 1;
                line.chars.remove(line.cursor);
            }
            Key::Delete if line.cursor < line.chars.len() => {
                line.chars.remove(line.cursor);
            }
            Key::EndOfInput if line.chars.is_empty() => return Edit::End,
            Key::Kill => {
                line.chars.clear();
                line.cursor = 0;
            }
            Key::Left => line.cursor = line.cursor.saturating_sub(1),
            Key::Right => line.cursor = (line.cursor + 1).min(line.chars.len()),
            Key::Home => line.cursor = 0,
            Key::End => line.cursor = line.chars.len(),
            Key::Up => self.recall(line, 1),
            Key::Down => self.recall(line, -1),
            Key::PasteStart => line.pasting = true,
            Key::PasteEnd => line.pasting = false,
            Key::Backspace | Key::Delete | Key::EndOfInput | Key::Ignored => {}
        }
        Edit::More
    }

    /// Shows the history entry `step` older (negative: newer) than the one shown.
    fn recall(&self, line: &mut Line, step: isize) {
        let newest_first = |n: usize| self.history.get(self.history.len().checked_sub(n + 1)?);
        let next = match (line.recalled, step) {
            (None, 1) => Some(0),
            (Some(n), 1) => Some(n + 1),
            (Some(0), _) => None,
            (Some(n), _) => Some(n - 1),
            (None, _) => return,
        };
        match next {
            Some(n) => {
                let Some(entry) = newest_first(n) else {
                    return;
                };
                if line.recalled.is_none() {
                    line.draft = line.chars.clone();
                }
                line.chars = entry.chars().collect();
                line.recalled = Some(n);
            }
            None => {
                line.chars = std::mem::take(&mut line.draft);
                line.recalled = None;
            }
        }
        line.cursor = line.chars.len();
    }

    /// Keeps `message` in the history, in memory and in the file.
    fn remember(&mut self, message: &str) {
        if message.trim().is_empty() || self.history.last().is_some_and(|last| last == message) {
            return;
        }
        self.history.push(message.to_owned());
        if let Some(file) = &self.file {
            let appended = file
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| {
                    std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(file)
                })
                .and_then(|mut f| writeln!(f, "{}", escape(message)));
            if let Err(e) = appended {
                tracing::warn!(error = %e, file = %file.display(), "the chat history could not be kept");
            }
        }
    }
}

/// The line redrawn: the prompt, the text (a line break shown as `↵`), the cursor put back.
fn draw(prompt: &str, line: &Line) {
    let shown: String = line
        .chars
        .iter()
        .map(|c| if *c == '\n' { '↵' } else { *c })
        .collect();
    let mut stderr = std::io::stderr().lock();
    let _ = write!(
        stderr,
        "\r\x1b[2K{prompt}{}",
        nodwyn_text::escape_line(&shown)
    );
    let back = line.chars.len() - line.cursor;
    if back > 0 {
        let _ = write!(stderr, "\x1b[{back}D");
    }
    let _ = stderr.flush();
}

/// The line being edited taken off the screen, the cursor at its start.
fn clear_line() {
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "\r\x1b[2K");
    let _ = stderr.flush();
}

/// A history entry as one line of the file: `\` and line breaks escaped.
fn escape(message: &str) -> String {
    message.replace('\\', "\\\\").replace('\n', "\\n")
}

fn unescape(line: &str) -> String {
    let mut text = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            (_, true) => match chars.next() {
                Some('n') => text.push('\n'),
                Some(other) => text.push(other),
                None => text.push('\\'),
            },
            (c, false) => text.push(c),
        }
    }
    text
}

/// A key, as the terminal sends it.
enum Key {
    Char(char),
    Enter,
    Backspace,
    Delete,
    EndOfInput,
    Kill,
    Left,
    Right,
    Home,
    End,
    Up,
    Down,
    PasteStart,
    PasteEnd,
    Ignored,
}

/// The keys read from standard input, byte by byte.
#[derive(Default)]
struct Keys {
    pending: Vec<u8>,
}

impl Keys {
    fn byte(&mut self) -> std::io::Result<Option<u8>> {
        if !self.pending.is_empty() {
            return Ok(Some(self.pending.remove(0)));
        }
        let mut one = [0u8; 1];
        loop {
            match rustix::io::read(std::io::stdin().as_fd(), &mut one) {
                Ok(0) => return Ok(None),
                Ok(_) => return Ok(Some(one[0])),
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }

    fn next(&mut self) -> std::io::Result<Option<Key>> {
        let Some(first) = self.byte()? else {
            return Ok(None);
        };
        Ok(Some(match first {
            b'\r' | b'\n' => Key::Enter,
            0x7f | 0x08 => Key::Backspace,
            0x04 => Key::EndOfInput,
            0x15 => Key::Kill,
            0x01 => Key::Home,
            0x05 => Key::End,
            0x1b => self.escape()?,
            byte if byte < 0x20 => Key::Ignored,
            byte => self.character(byte)?,
        }))
    }

    /// The rest of an escape sequence after ESC.
    fn escape(&mut self) -> std::io::Result<Key> {
        if self.byte()? != Some(b'[') {
            return Ok(Key::Ignored);
        }
        let mut parameters = Vec::new();
        let last = loop {
            match self.byte()? {
                Some(b) if b.is_ascii_digit() || b == b';' => parameters.push(b),
                Some(b) => break b,
                None => return Ok(Key::Ignored),
            }
        };
        Ok(match (parameters.as_slice(), last) {
            (b"", b'A') => Key::Up,
            (b"", b'B') => Key::Down,
            (b"", b'C') => Key::Right,
            (b"", b'D') => Key::Left,
            (b"", b'H') | (b"1", b'~') => Key::Home,
            (b"", b'F') | (b"4", b'~') => Key::End,
            (b"3", b'~') => Key::Delete,
            (b"200", b'~') => Key::PasteStart,
            (b"201", b'~') => Key::PasteEnd,
            _ => Key::Ignored,
        })
    }

    /// The character a UTF-8 sequence starting with `first` makes.
    fn character(&mut self, first: u8) -> std::io::Result<Key> {
        let length = match first {
            0x00..=0x7f => 1,
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            _ => return Ok(Key::Ignored),
        };
        let mut bytes = vec![first];
        while bytes.len() < length {
            match self.byte()? {
                Some(b) if b & 0xc0 == 0x80 => bytes.push(b),
                Some(b) => {
                    self.pending.insert(0, b);
                    return Ok(Key::Ignored);
                }
                None => return Ok(Key::Ignored),
            }
        }
        Ok(std::str::from_utf8(&bytes)
            .ok()
            .and_then(|s| s.chars().next())
            .map_or(Key::Ignored, Key::Char))
    }
}

/// The terminal with echo and line buffering off and bracketed paste on, until dropped.
struct Raw {
    saved: rustix::termios::Termios,
}

impl Raw {
    fn enter(stdin: &std::io::Stdin) -> std::io::Result<Self> {
        use rustix::termios::{LocalModes, OptionalActions, SpecialCodeIndex};
        let saved = rustix::termios::tcgetattr(stdin)?;
        let mut raw = saved.clone();
        raw.local_modes &= !(LocalModes::ICANON | LocalModes::ECHO);
        raw.special_codes[SpecialCodeIndex::VMIN] = 1;
        raw.special_codes[SpecialCodeIndex::VTIME] = 0;
        rustix::termios::tcsetattr(stdin, OptionalActions::Now, &raw)?;
        let mut stderr = std::io::stderr();
        let _ = write!(stderr, "\x1b[?2004h");
        let _ = stderr.flush();
        Ok(Self { saved })
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let mut stderr = std::io::stderr();
        let _ = write!(stderr, "\x1b[?2004l");
        let _ = stderr.flush();
        let _ = rustix::termios::tcsetattr(
            std::io::stdin(),
            rustix::termios::OptionalActions::Now,
            &self.saved,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_entry_with_line_breaks_is_one_line_of_its_file() {
        let message = "first line\nsecond \\ line";
        assert_eq!(escape(message), "first line\\nsecond \\\\ line");
        assert_eq!(unescape(&escape(message)), message);
    }

    #[test]
    fn the_cursor_keys_edit_and_browse_the_history() {
        let editor = LineEditor {
            history: vec!["older".to_owned(), "newest".to_owned()],
            file: None,
        };
        let mut line = Line {
            chars: "draft".chars().collect(),
            cursor: 5,
            recalled: None,
            draft: Vec::new(),
            pasting: false,
        };
        editor.apply(&mut line, Key::Up);
        assert_eq!(line.chars.iter().collect::<String>(), "newest");
        editor.apply(&mut line, Key::Up);
        assert_eq!(line.chars.iter().collect::<String>(), "older");
        editor.apply(&mut line, Key::Down);
        editor.apply(&mut line, Key::Down);
        assert_eq!(line.chars.iter().collect::<String>(), "draft");
        editor.apply(&mut line, Key::Left);
        editor.apply(&mut line, Key::Backspace);
        assert_eq!(line.chars.iter().collect::<String>(), "drat");
        // Inside a paste a line break is text, outside it ends the line.
        editor.apply(&mut line, Key::PasteStart);
        assert!(matches!(editor.apply(&mut line, Key::Enter), Edit::More));
        editor.apply(&mut line, Key::PasteEnd);
        assert!(matches!(editor.apply(&mut line, Key::Enter), Edit::Done));
    }
}
