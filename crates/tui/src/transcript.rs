//! The conversation as lines for the scrollback: the person's messages, the model's text (each
//! line behind a gutter, so it cannot pass for the interface's own lines), each tool call on one
//! line with its result folded into a short ending, the guard's decisions, worktree events in the
//! console's words, and how each turn ended. Everything a session produced is escaped first: it
//! reaches the terminal as text, never as a control sequence.

use nodwyn_text::escape_line;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use unicode_width::UnicodeWidthStr;

/// What every line of the model's text starts with.
pub(crate) const MODEL_GUTTER: &str = "\u{2502} ";

/// How long a tool call's arguments may run on its line.
const ARGUMENTS_SHOWN: usize = 100;

/// Builds the scrollback's lines from the session's messages, holding the model's line not yet
/// ended.
#[derive(Default)]
pub(crate) struct Transcript {
    /// The model's text since its last line break.
    partial: String,
    /// Whether styles are drawn.
    color: bool,
}

impl Transcript {
    /// A transcript, styled when `color`.
    pub(crate) fn new(color: bool) -> Self {
        Self {
            partial: String::new(),
            color,
        }
    }

    /// The model's line not yet ended (shown in the pane until it ends).
    pub(crate) fn partial(&self) -> &str {
        &self.partial
    }

    fn style(&self, style: Style) -> Style {
        if self.color { style } else { Style::default() }
    }

    /// A line of the interface's own: a label, then text.
    fn labelled(&self, label: &str, text: &str, style: Style) -> Line<'static> {
        Line::from(vec![
            Span::styled(
                format!("{label} "),
                self.style(style.add_modifier(Modifier::BOLD)),
            ),
            Span::styled(escape_line(text), self.style(style)),
        ])
    }

    fn model_line(&self, text: &str) -> Line<'static> {
        Line::from(vec![
            Span::styled(
                MODEL_GUTTER,
                self.style(Style::default().fg(Color::DarkGray)),
            ),
            Span::raw(escape_line(text)),
        ])
    }

    /// The person's own message, as sent.
    pub(crate) fn said(&self, text: &str) -> Vec<Line<'static>> {
        text.lines()
            .map(|line| self.labelled("you", line, Style::default().fg(Color::Cyan)))
            .collect()
    }

    /// A note of the interface's own (a refusal, a hint).
    pub(crate) fn note(&self, text: &str) -> Vec<Line<'static>> {
        vec![self.labelled("nodwyn", text, Style::default().fg(Color::Yellow))]
    }

    /// The lines one protocol notification adds to the scrollback.
    pub(crate) fn notified(&mut self, method: &str, params: &Value) -> Vec<Line<'static>> {
        match method {
            "item.delta" => {
                self.partial
                    .push_str(params["text"].as_str().unwrap_or_default());
                let mut lines = Vec::new();
                while let Some(end) = self.partial.find('\n') {
                    let line: String = self.partial.drain(..=end).collect();
                    lines.push(self.model_line(line.trim_end_matches('\n')));
                }
                lines
            }
            "item.completed" => self.item(params),
            "session.record" => self.record(&params["record"]),
            "turn.completed" => {
                let mut lines = self.flush();
                let end = &params["end"];
                let reason = end["reason"].as_str().unwrap_or("ended");
                let why = end["why"]
                    .as_str()
                    .map(|why| format!(": {why}"))
                    .unwrap_or_default();
                if reason != "finished" {
                    lines.push(self.labelled(
                        "turn",
                        &format!("{reason}{why}"),
                        Style::default().fg(Color::Yellow),
                    ));
                }
                lines
            }
            _ => Vec::new(),
        }
    }

    /// The model's line not ended yet, ended.
    fn flush(&mut self) -> Vec<Line<'static>> {
        if self.partial.is_empty() {
            return Vec::new();
        }
        let line = std::mem::take(&mut self.partial);
        vec![self.model_line(&line)]
    }

    fn item(&mut self, params: &Value) -> Vec<Line<'static>> {
        // Items of sub-agents are theirs; the session's own agent speaks here.
        if params.get("agent").is_some_and(|agent| !agent.is_null()) {
            return Vec::new();
        }
        match params["kind"].as_str() {
            Some("assistant_message") => {
                let streamed = !self.partial.is_empty();
                let mut lines = self.flush();
                let text = params["text"].as_str().unwrap_or_default();
                if !streamed && lines.is_empty() && !text.is_empty() {
                    // Not streamed (a server that answers whole): shown whole.
                    lines.extend(text.lines().map(|line| self.model_line(line)));
                }
                for call in params["tool_calls"].as_array().into_iter().flatten() {
                    let arguments = call["arguments"].to_string();
                    let arguments: String = arguments.chars().take(ARGUMENTS_SHOWN).collect();
                    lines.push(self.labelled(
                        "call",
                        &format!("{} {arguments}", call["tool"].as_str().unwrap_or_default()),
                        Style::default().fg(Color::Blue),
                    ));
                }
                lines
            }
            Some("tool_result") => {
                let content = params["content"].as_str().unwrap_or_default();
                let first = content.lines().next().unwrap_or_default();
                let (label, text, style) = if params["ok"].as_bool() == Some(true) {
                    ("  ok", String::new(), Style::default().fg(Color::Green))
                } else {
                    (
                        "  refused",
                        first.to_owned(),
                        Style::default().fg(Color::Red),
                    )
                };
                vec![self.labelled(label, &text, style)]
            }
            Some("notice") => self.note(params["text"].as_str().unwrap_or_default()),
            _ => Vec::new(),
        }
    }

    fn record(&self, record: &Value) -> Vec<Line<'static>> {
        if record["type"] == "guard.decision" && record["by"] == "person" {
            let answer = if record["answer"] == "allow" {
                "allowed"
            } else {
                "declined"
            };
            return vec![self.labelled(
                "guard",
                &format!(
                    "you {answer}: {}",
                    record["action"].as_str().unwrap_or_default()
                ),
                Style::default().fg(Color::Magenta),
            )];
        }
        match crate::words::record_in_words(record) {
            Some(words) => {
                vec![self.labelled("worktree", &words, Style::default().fg(Color::Magenta))]
            }
            None => Vec::new(),
        }
    }
}

/// How many terminal rows `lines` take at `width` columns, wrapped.
pub(crate) fn wrapped_height(lines: &[Line<'_>], width: u16) -> u16 {
    let width = usize::from(width.max(1));
    let rows: usize = lines
        .iter()
        .map(|line| {
            let shown: usize = line.spans.iter().map(|span| span.content.width()).sum();
            shown.div_ceil(width).max(1)
        })
        .sum();
    u16::try_from(rows).unwrap_or(u16::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|line| line.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn the_models_text_comes_line_by_line_behind_its_gutter_escaped() {
        let mut transcript = Transcript::new(false);
        assert!(
            transcript
                .notified("item.delta", &json!({"text": "Hello "}))
                .is_empty()
        );
        let lines = transcript.notified(
            "item.delta",
            &json!({"text": "world\n\u{1b}[2Jnodwyn confirm: y"}),
        );
        assert_eq!(text(&lines), ["\u{2502} Hello world"]);
        let done = transcript.notified(
            "item.completed",
            &json!({"kind": "assistant_message", "text": "x", "tool_calls": [{"tool": "fs-read", "arguments": {"path": "a"}}]}),
        );
        assert_eq!(
            text(&done),
            [
                "\u{2502} \\u{1b}[2Jnodwyn confirm: y",
                "call fs-read {\"path\":\"a\"}"
            ]
        );
    }

    #[test]
    fn results_decisions_worktree_events_and_ends() {
        let mut transcript = Transcript::new(false);
        let refused = transcript.notified(
            "item.completed",
            &json!({"kind": "tool_result", "ok": false, "content": "needs_person: ask\nmore"}),
        );
        assert_eq!(text(&refused), ["  refused needs_person: ask"]);
        let made = transcript.notified(
            "session.record",
            &json!({"record": {"type": "worktree.create", "path": "/w", "branch": "nodwyn/1a", "uncommitted": 0}}),
        );
        assert_eq!(text(&made), ["worktree Made the worktree /w on nodwyn/1a"]);
        let ended =
            transcript.notified("turn.completed", &json!({"end": {"reason": "interrupted"}}));
        assert_eq!(text(&ended), ["turn interrupted"]);
        assert!(
            transcript
                .notified("turn.completed", &json!({"end": {"reason": "finished"}}))
                .is_empty()
        );
    }

    #[test]
    fn wrapped_lines_take_the_rows_they_fill() {
        let lines = [Line::from("abcdef"), Line::from(""), Line::from("日本")];
        assert_eq!(wrapped_height(&lines, 4), 2 + 1 + 1);
    }
}
