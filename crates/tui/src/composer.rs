//! The composer: the message being written, with its cursor. It is the person's draft: nothing
//! but sending it or the person's own keys changes it (a lost connection keeps it).

use crate::keys::Key;

/// A draft and where its cursor is (a character index).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Composer {
    text: Vec<char>,
    cursor: usize,
}

impl Composer {
    /// The draft.
    pub(crate) fn text(&self) -> String {
        self.text.iter().collect()
    }

    /// Whether nothing is written.
    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Where the cursor is: its line and its column (in characters).
    pub(crate) fn cursor(&self) -> (usize, usize) {
        let before = &self.text[..self.cursor];
        let line = before.iter().filter(|c| **c == '\n').count();
        let column = before.iter().rev().take_while(|c| **c != '\n').count();
        (line, column)
    }

    /// Types `c` at the cursor.
    pub(crate) fn insert(&mut self, c: char) {
        self.text.insert(self.cursor, c);
        self.cursor += 1;
    }

    /// Types `text` at the cursor (a paste).
    pub(crate) fn insert_str(&mut self, text: &str) {
        for c in text.chars().filter(|c| *c != '\r') {
            self.insert(c);
        }
    }

    /// Removes the character before the cursor.
    pub(crate) fn backspace(&mut self) {
        if self.cursor > 0 {
            self.cursor -= 1;
            self.text.remove(self.cursor);
        }
    }

    /// Removes the character under the cursor.
    pub(crate) fn delete(&mut self) {
        if self.cursor < self.text.len() {
            self.text.remove(self.cursor);
        }
    }

    /// Moves the cursor one character left.
    pub(crate) fn left(&mut self) {
        self.cursor = self.cursor.saturating_sub(1);
    }

    /// Moves the cursor one character right.
    pub(crate) fn right(&mut self) {
        self.cursor = (self.cursor + 1).min(self.text.len());
    }

    /// Moves the cursor to the start of its line.
    pub(crate) fn home(&mut self) {
        while self.cursor > 0 && self.text[self.cursor - 1] != '\n' {
            self.cursor -= 1;
        }
    }

    /// Moves the cursor to the end of its line.
    pub(crate) fn end(&mut self) {
        while self.cursor < self.text.len() && self.text[self.cursor] != '\n' {
            self.cursor += 1;
        }
    }

    /// Does what an editing key asks (typing, a new line, a paste, the arrows along the line,
    /// erasing): whether `key` was one.
    pub(crate) fn edit(&mut self, key: &Key) -> bool {
        match key {
            Key::NewLine => self.insert('\n'),
            Key::Char(c) => self.insert(*c),
            Key::Paste(text) => self.insert_str(text),
            Key::Backspace => self.backspace(),
            Key::Delete => self.delete(),
            Key::Left => self.left(),
            Key::Right => self.right(),
            Key::Home => self.home(),
            Key::End => self.end(),
            _ => return false,
        }
        true
    }

    /// Takes the draft away to send it, leaving the composer empty.
    pub(crate) fn take(&mut self) -> String {
        self.cursor = 0;
        std::mem::take(&mut self.text).into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_moving_and_taking_the_draft() {
        let mut composer = Composer::default();
        composer.insert_str("helo\r\nworld");
        assert_eq!(composer.cursor(), (1, 5));
        composer.home();
        composer.left();
        composer.left();
        composer.insert('l');
        assert_eq!(composer.text(), "hello\nworld");
        composer.end();
        composer.backspace();
        assert_eq!(composer.text(), "hell\nworld");
        // Delete at a line's end joins the next line to it.
        composer.delete();
        assert_eq!(composer.take(), "hellworld");
        assert!(composer.is_empty());
        assert_eq!(composer.cursor(), (0, 0));
    }
}
