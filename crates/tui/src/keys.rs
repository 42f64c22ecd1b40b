//! The keys the interface takes, read from the terminal's events: Enter sends, Alt-Enter (or
//! Shift-Enter where the terminal tells it apart) begins a new line, Ctrl-C interrupts, Ctrl-D
//! leaves, Esc, the arrows and the editing keys.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What a key asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Key {
    /// Enter.
    Send,
    /// Alt-Enter, Shift-Enter.
    NewLine,
    /// A character typed.
    Char(char),
    /// Text pasted.
    Paste(String),
    Backspace,
    Delete,
    Left,
    Right,
    Home,
    End,
    Up,
    Down,
    /// Ctrl-C.
    Interrupt,
    /// Ctrl-D.
    Leave,
    /// Esc.
    Escape,
    /// The terminal's size changed.
    Resized,
}

/// The key an event is, if it is one the interface takes.
pub(crate) fn key(event: &Event) -> Option<Key> {
    match event {
        Event::Key(KeyEvent {
            code,
            modifiers,
            kind: KeyEventKind::Press | KeyEventKind::Repeat,
            ..
        }) => {
            let control = modifiers.contains(KeyModifiers::CONTROL);
            Some(match code {
                KeyCode::Char('c') if control => Key::Interrupt,
                KeyCode::Char('d') if control => Key::Leave,
                KeyCode::Char('j') if control => Key::NewLine,
                KeyCode::Char(_) if control => return None,
                KeyCode::Enter if modifiers.intersects(KeyModifiers::ALT | KeyModifiers::SHIFT) => {
                    Key::NewLine
                }
                KeyCode::Enter => Key::Send,
                KeyCode::Char(c) => Key::Char(*c),
                KeyCode::Tab => Key::Char('\t'),
                KeyCode::Backspace => Key::Backspace,
                KeyCode::Delete => Key::Delete,
                KeyCode::Left => Key::Left,
                KeyCode::Right => Key::Right,
                KeyCode::Home => Key::Home,
                KeyCode::End => Key::End,
                KeyCode::Up => Key::Up,
                KeyCode::Down => Key::Down,
                KeyCode::Esc => Key::Escape,
                _ => return None,
            })
        }
        Event::Paste(text) => Some(Key::Paste(text.clone())),
        Event::Resize(..) => Some(Key::Resized),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode, modifiers: KeyModifiers) -> Option<Key> {
        key(&Event::Key(KeyEvent::new(code, modifiers)))
    }

    #[test]
    fn enter_sends_and_alt_or_shift_enter_begins_a_line() {
        assert_eq!(press(KeyCode::Enter, KeyModifiers::NONE), Some(Key::Send));
        assert_eq!(press(KeyCode::Enter, KeyModifiers::ALT), Some(Key::NewLine));
        assert_eq!(
            press(KeyCode::Enter, KeyModifiers::SHIFT),
            Some(Key::NewLine)
        );
        assert_eq!(
            press(KeyCode::Char('c'), KeyModifiers::CONTROL),
            Some(Key::Interrupt)
        );
        assert_eq!(
            press(KeyCode::Char('d'), KeyModifiers::CONTROL),
            Some(Key::Leave)
        );
        assert_eq!(press(KeyCode::Char('x'), KeyModifiers::CONTROL), None);
        assert_eq!(
            press(KeyCode::Char('y'), KeyModifiers::NONE),
            Some(Key::Char('y'))
        );
    }
}
