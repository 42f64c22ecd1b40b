//! The live pane at the bottom of the terminal: the status line (where the session works and
//! what its turn does), the model's line not ended yet or the question that waits, and the
//! composer with the keys it takes.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::composer::Composer;
use crate::transcript::MODEL_GUTTER;

/// A question of the guard's, waiting for the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Question {
    /// The request's id, which the answer names.
    pub(crate) request: String,
    /// Whether only a person may answer it, and it takes a second key.
    pub(crate) security: bool,
    /// What it would do, in words (escaped).
    pub(crate) action: String,
    /// Why it is asked (escaped).
    pub(crate) why: String,
    /// What "always" would allow, when the engine offers it (escaped).
    pub(crate) always: Option<String>,
    /// Whether the first `y` of a security confirm was pressed.
    pub(crate) confirming: bool,
}

/// What the pane shows.
pub(crate) struct PaneView<'a> {
    /// The status line.
    pub(crate) status: &'a str,
    /// The model's text since its last line break.
    pub(crate) partial: &'a str,
    /// The question that waits, if one does.
    pub(crate) question: Option<&'a Question>,
    /// The draft.
    pub(crate) composer: &'a Composer,
    /// A sentence of the interface's for the person (a hint, a refusal), under the composer.
    pub(crate) said: &'a str,
    /// Whether styles are drawn.
    pub(crate) color: bool,
}

const KEYS: &str = "Enter sends · Alt-Enter new line · Ctrl-C interrupts · Ctrl-D leaves · /help";

/// [`KEYS`] on a narrow terminal.
const SHORT_KEYS: &str = "Enter sends · Ctrl-C interrupts · Ctrl-D leaves";

impl PaneView<'_> {
    fn style(&self, style: Style) -> Style {
        if self.color { style } else { Style::default() }
    }

    /// Draws the pane into `area`.
    pub(crate) fn render(&self, frame: &mut Frame<'_>, area: Rect) {
        let [status, middle, composer, said] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(1),
            Constraint::Length(3),
            Constraint::Length(1),
        ])
        .areas(area);
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(
                self.status.to_owned(),
                self.style(Style::default().add_modifier(Modifier::REVERSED)),
            ))),
            status,
        );
        match self.question {
            Some(question) => self.question(frame, middle, question),
            None if !self.partial.is_empty() => frame.render_widget(
                Paragraph::new(Line::from(vec![
                    Span::raw(MODEL_GUTTER),
                    Span::raw(nodwyn_text::escape_line(self.partial)),
                ]))
                .wrap(Wrap { trim: false }),
                middle,
            ),
            None => {}
        }
        self.composer(frame, composer);
        let keys = if area.width < 80 { SHORT_KEYS } else { KEYS };
        let said_text = if self.said.is_empty() {
            keys
        } else {
            self.said
        };
        frame.render_widget(
            // A refusal may quote what a session produced (a file name): as text.
            Paragraph::new(Line::from(Span::styled(
                nodwyn_text::escape_line(said_text),
                self.style(Style::default().fg(Color::DarkGray)),
            ))),
            said,
        );
    }

    fn question(&self, frame: &mut Frame<'_>, area: Rect, question: &Question) {
        let title = if question.security {
            "Security confirm: only you can answer it"
        } else {
            "The guard asks"
        };
        let keys = match (question.security, question.confirming, &question.always) {
            (true, false, _) => {
                "y then y again allows · n declines · Esc interrupts the turn".to_owned()
            }
            (true, true, _) => "y again to allow · n declines".to_owned(),
            (false, _, Some(always)) => {
                format!(
                    "y allows · a always allows {always} · n declines · Esc interrupts the turn"
                )
            }
            (false, _, None) => "y allows · n declines · Esc interrupts the turn".to_owned(),
        };
        let warn = self.style(
            Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        );
        // The keys before the reason: on a narrow terminal the reason is what is cut.
        let lines = vec![
            Line::from(Span::styled(title, warn)),
            Line::from(format!("  {}", question.action)),
            Line::from(Span::styled(keys, warn)),
            Line::from(format!("  because: {}", question.why)),
        ];
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
    }

    fn composer(&self, frame: &mut Frame<'_>, area: Rect) {
        let block = Block::default()
            .borders(Borders::TOP)
            .border_style(self.style(Style::default().fg(Color::DarkGray)));
        let inner = block.inner(area);
        let text = self.composer.text();
        let (line, column) = self.composer.cursor();
        // The lines around the cursor, as many as fit.
        let height = usize::from(inner.height.max(1));
        let first = line.saturating_sub(height - 1);
        let shown: Vec<Line<'_>> = text
            .split('\n')
            .skip(first)
            .take(height)
            .enumerate()
            .map(|(index, text)| {
                let prompt = if index + first == 0 { "> " } else { "  " };
                Line::from(format!("{prompt}{}", nodwyn_text::escape_line(text)))
            })
            .collect();
        frame.render_widget(Paragraph::new(shown).block(block), area);
        if self.question.is_none() {
            let before: String = text
                .split('\n')
                .nth(line)
                .unwrap_or_default()
                .chars()
                .take(column)
                .collect();
            let x = inner.x
                + 2
                + u16::try_from(nodwyn_text::escape_line(&before).chars().count()).unwrap_or(0);
            let y = inner.y + u16::try_from(line - first).unwrap_or(0);
            frame.set_cursor_position((x.min(inner.right().saturating_sub(1)), y));
        }
    }
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;

    fn drawn(width: u16, view: &PaneView<'_>) -> String {
        let mut terminal =
            Terminal::new(TestBackend::new(width, crate::terminal::PANE_HEIGHT)).unwrap();
        terminal
            .draw(|frame| view.render(frame, frame.area()))
            .unwrap();
        terminal.backend().to_string()
    }

    fn composer(text: &str) -> Composer {
        let mut composer = Composer::default();
        composer.insert_str(text);
        composer
    }

    #[test]
    fn the_status_line_names_the_branch_and_the_model_line_not_ended() {
        let draft = composer("and then land it");
        let view = PaneView {
            status: "nodwyn · nodwyn/1a2b3c4d · working",
            partial: "Reading the tests first",
            question: None,
            composer: &draft,
            said: "",
            color: false,
        };
        insta::assert_snapshot!(drawn(72, &view));
    }

    #[test]
    fn a_security_confirm_says_so_and_takes_a_second_key() {
        let draft = Composer::default();
        let question = Question {
            request: "q1".to_owned(),
            security: true,
            action: "fs-write ~/.bashrc".to_owned(),
            why: "it is outside the session's folder".to_owned(),
            always: None,
            confirming: false,
        };
        let view = PaneView {
            status: "nodwyn · nodwyn/1a2b3c4d · waiting for you",
            partial: "",
            question: Some(&question),
            composer: &draft,
            said: "",
            color: false,
        };
        insta::assert_snapshot!(drawn(72, &view));
        let confirming = Question {
            confirming: true,
            ..question.clone()
        };
        let again = PaneView {
            question: Some(&confirming),
            ..view
        };
        assert!(drawn(72, &again).contains("y again to allow"));
    }

    #[test]
    fn an_ordinary_question_offers_always_and_a_narrow_terminal_wraps_it() {
        let draft = composer("first line\nsecond line");
        let question = Question {
            request: "q2".to_owned(),
            security: false,
            action: "shell-exec cargo test --all".to_owned(),
            why: "commands are asked".to_owned(),
            always: Some("cargo test".to_owned()),
            confirming: false,
        };
        let view = PaneView {
            status: "nodwyn · /src/app · waiting for you",
            partial: "",
            question: Some(&question),
            composer: &draft,
            said: "",
            color: false,
        };
        insta::assert_snapshot!(drawn(40, &view));
    }
}
