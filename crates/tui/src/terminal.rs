//! The terminal as the interface uses it: raw mode, a pane of a few lines at the bottom (ratatui's
//! inline viewport) under which nothing is drawn, the conversation inserted above it into the
//! terminal's own scrollback, the window's title; and the terminal left as it was found on every
//! way out, a panic included, with the cursor below the last line.

use std::io::{Stdout, Write};

use crossterm::{cursor, execute, terminal};
use ratatui::backend::CrosstermBackend;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};
use ratatui::{Frame, Terminal, TerminalOptions, Viewport};

use crate::transcript::wrapped_height;

/// Whether the terminal went away (its window closed, its connection dropped): a hung-up
/// terminal answers no question about itself. The interface asks at every tick, since a program
/// that ignores SIGHUP (started under `nohup`) would otherwise keep polling a dead terminal,
/// which reports itself ready for ever, with nothing to read.
pub(crate) fn hung_up() -> bool {
    use std::io::IsTerminal;
    !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal()
}

/// The pane's height: the status line, a question or the chooser, and the composer.
pub(crate) const PANE_HEIGHT: u16 = 10;

/// The terminal, set up; [`Screen::close`] (or a panic) puts it back.
pub(crate) struct Screen {
    terminal: Terminal<CrosstermBackend<Stdout>>,
    /// Whether styles are drawn (`NO_COLOR` unset).
    pub(crate) color: bool,
    closed: bool,
}

impl Screen {
    /// Raw mode, the pane at the bottom, the window's title saved.
    pub(crate) fn open(color: bool) -> anyhow::Result<Self> {
        terminal::enable_raw_mode()?;
        restore_on_panic();
        // xterm's title stack: the title is put back as it was on the way out.
        let mut stdout = std::io::stdout();
        let _ = stdout.write_all(b"\x1b[22;0t");
        let terminal = Terminal::with_options(
            CrosstermBackend::new(std::io::stdout()),
            TerminalOptions {
                viewport: Viewport::Inline(PANE_HEIGHT),
            },
        );
        let terminal = match terminal {
            Ok(terminal) => terminal,
            Err(error) => {
                restore();
                return Err(anyhow::anyhow!(
                    "this terminal did not say where its cursor is ({error}); nodwyn tui needs a terminal that answers, or use nodwyn chat"
                ));
            }
        };
        Ok(Self {
            terminal,
            color,
            closed: false,
        })
    }

    /// Draws the pane.
    pub(crate) fn draw(&mut self, render: impl FnOnce(&mut Frame<'_>)) -> anyhow::Result<()> {
        self.terminal.draw(render)?;
        Ok(())
    }

    /// Writes `lines` into the scrollback above the pane, wrapped to the terminal's width.
    pub(crate) fn insert(&mut self, lines: Vec<Line<'static>>) -> anyhow::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        let width = self.terminal.size()?.width.max(1);
        let height = wrapped_height(&lines, width);
        let paragraph = Paragraph::new(lines).wrap(ratatui::widgets::Wrap { trim: false });
        self.terminal
            .insert_before(height, |buffer| paragraph.render(buffer.area, buffer))?;
        Ok(())
    }

    /// Sets the window's title (its text already made printable).
    pub(crate) fn title(&mut self, title: &str) {
        let _ = execute!(std::io::stdout(), terminal::SetTitle(title));
    }

    /// Puts the terminal back: the pane cleared, the cursor below the last line and shown, raw
    /// mode off, the window's title as it was.
    pub(crate) fn close(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        let _ = self.terminal.clear();
        let area = self.terminal.get_frame().area();
        let _ = execute!(std::io::stdout(), cursor::MoveTo(0, area.y));
        restore();
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        self.close();
    }
}

/// Raw mode off, the cursor shown, the title put back.
fn restore() {
    let _ = terminal::disable_raw_mode();
    let mut stdout = std::io::stdout();
    let _ = execute!(stdout, cursor::Show);
    let _ = stdout.write_all(b"\x1b[23;0t");
    let _ = stdout.flush();
}

/// A panic puts the terminal back before its message is printed, so the message is readable
/// and the shell after it works.
fn restore_on_panic() {
    let before = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        let _ = std::io::stdout().write_all(b"\r\n");
        before(info);
    }));
}
