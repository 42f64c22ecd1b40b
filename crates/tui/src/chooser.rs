//! The chooser shown at start: a new session in a new worktree of the repository first (so Enter
//! twice gives the default), a session in the folder itself, then the repository's sessions,
//! newest first, a worktree session shown by its branch, with its state and age. The rows for
//! folders come from what the folder looks like; the engine decides when one is chosen.

use std::path::{Path, PathBuf};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;

/// What a row opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// A new session in a new worktree of the repository.
    NewWorktree,
    /// A new session in the folder itself.
    InFolder,
    /// An existing session, resumed.
    Resume(String),
}

/// One row of the chooser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// What it opens.
    pub choice: Choice,
    /// What it says.
    pub text: String,
}

/// The chooser: its rows and the selected one.
pub(crate) struct Chooser {
    pub(crate) rows: Vec<Row>,
    pub(crate) selected: usize,
}

/// The top of the git checkout `folder` is in, as far as the files tell (a `.git` entry in it
/// or a folder above).
pub(crate) fn looks_like_repository(folder: &Path) -> Option<PathBuf> {
    folder
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}

impl Chooser {
    /// The rows for `folder` and its sessions (`session.list`'s, with `worktree.list`'s `dirty`
    /// and `idle_seconds` where known, and whether a question of theirs waits), newest first.
    /// `now` is the time in seconds since 1970.
    pub(crate) fn new(folder: &Path, sessions: &[Value], now: i64) -> Self {
        let shown = nodwyn_text::escape_line(&folder.display().to_string());
        let mut rows = Vec::new();
        if let Some(top) = looks_like_repository(folder) {
            rows.push(Row {
                choice: Choice::NewWorktree,
                text: format!(
                    "New session in a new worktree of {}",
                    nodwyn_text::escape_line(&top.display().to_string())
                ),
            });
        }
        rows.push(Row {
            choice: Choice::InFolder,
            text: format!("New session in {shown} itself"),
        });
        let mut sessions: Vec<&Value> = sessions.iter().collect();
        sessions.sort_by(|a, b| b["session"].as_str().cmp(&a["session"].as_str()));
        for session in sessions {
            let id = session["session"].as_str().unwrap_or_default();
            let short = &id[id.len().saturating_sub(8)..];
            let name = session["name"]
                .as_str()
                .or_else(|| session["branch"].as_str())
                .map_or_else(|| format!("{short} in the folder"), str::to_owned);
            let mut state = vec![if session["waiting"] == true {
                "waiting for you"
            } else if session["open"] == true {
                "open"
            } else {
                "closed"
            }];
            if session["dirty"] == true {
                state.push("dirty");
            }
            rows.push(Row {
                choice: Choice::Resume(id.to_owned()),
                text: format!(
                    "{}  {}  {}",
                    nodwyn_text::escape_line(&name),
                    state.join(", "),
                    age(id, now)
                ),
            });
        }
        Self { rows, selected: 0 }
    }

    /// The selected row's choice.
    pub(crate) fn choice(&self) -> &Choice {
        &self.rows[self.selected].choice
    }

    /// Moves the selection by `by` rows, within the list.
    pub(crate) fn step(&mut self, by: isize) {
        let last = self.rows.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(by).min(last);
    }

    /// Draws the rows that fit in `area`, the selected one among them, marked.
    pub(crate) fn render(&self, frame: &mut Frame<'_>, area: Rect, color: bool) {
        let height = usize::from(area.height.max(1));
        let first = self.selected.saturating_sub(height - 1);
        let lines: Vec<Line<'_>> = self
            .rows
            .iter()
            .enumerate()
            .skip(first)
            .take(height)
            .map(|(index, row)| {
                let chosen = index == self.selected;
                let marker = if chosen { "> " } else { "  " };
                let style = if chosen && color {
                    Style::default().add_modifier(Modifier::REVERSED)
                } else if chosen {
                    Style::default().add_modifier(Modifier::BOLD)
                } else {
                    Style::default()
                };
                Line::from(vec![
                    Span::raw(marker),
                    Span::styled(row.text.clone(), style),
                ])
            })
            .collect();
        frame.render_widget(Paragraph::new(lines), area);
    }
}

/// How long ago session `id` began (its id starts with its UTC stamp, `20261203T114450Z`),
/// at `now` (seconds since 1970).
fn age(id: &str, now: i64) -> String {
    let Some(then) = stamp_seconds(id) else {
        return String::new();
    };
    match (now - then).max(0) {
        s if s < 120 => "just now".to_owned(),
        s if s < 7200 => format!("{} min ago", s / 60),
        s if s < 172_800 => format!("{} h ago", s / 3600),
        s => format!("{} days ago", s / 86_400),
    }
}

/// The seconds since 1970 of a stamp `20261203T114450Z` (what a session id starts with).
pub(crate) fn stamp_seconds(stamp: &str) -> Option<i64> {
    let digits = |range: std::ops::Range<usize>| stamp.get(range)?.parse::<i64>().ok();
    let days = days_from_civil(digits(0..4)?, digits(4..6)?, digits(6..8)?);
    Some(days * 86_400 + digits(9..11)? * 3600 + digits(11..13)? * 60 + digits(13..15)?)
}

/// Days since 1970-01-01 of a date (Howard Hinnant's civil-from-days, inverted).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let of_era = year - era * 400;
    let month_index = (month + 9) % 12;
    let of_year = (153 * month_index + 2) / 5 + day - 1;
    let of_era_days = of_era * 365 + of_era / 4 - of_era / 100 + of_year;
    era * 146_097 + of_era_days - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_repository_offers_a_new_worktree_first_then_the_folder_then_its_sessions_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        let sessions = [
            json!({"session": "20261201T100000Z-aaaaaaaa", "branch": "nodwyn/aaaaaaaa", "open": false}),
            json!({"session": "20261203T100000Z-bbbbbbbb", "branch": null, "open": true, "dirty": true}),
        ];
        let now = stamp_seconds("20261203T103000Z").unwrap();
        let chooser = Chooser::new(&dir.path().join("src"), &sessions, now);
        let rows: Vec<&str> = chooser.rows.iter().map(|r| r.text.as_str()).collect();
        assert!(
            rows[0].starts_with("New session in a new worktree of "),
            "{rows:?}"
        );
        assert!(rows[1].ends_with("/src itself"), "{rows:?}");
        assert_eq!(rows[2], "bbbbbbbb in the folder  open, dirty  30 min ago");
        assert_eq!(rows[3], "nodwyn/aaaaaaaa  closed  2 days ago");
        assert_eq!(chooser.choice(), &Choice::NewWorktree);
    }

    #[test]
    fn a_folder_outside_git_offers_the_folder_first() {
        let dir = tempfile::tempdir().unwrap();
        let chooser = Chooser::new(dir.path(), &[], 0);
        assert_eq!(chooser.rows.len(), 1);
        assert_eq!(chooser.choice(), &Choice::InFolder);
    }

    #[test]
    fn the_chooser_marks_the_selected_row_and_scrolls_to_it() {
        use ratatui::Terminal;
        use ratatui::backend::TestBackend;
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        let sessions: Vec<Value> = (0..6)
            .map(|i| json!({"session": format!("20261203T10000{i}Z-0000000{i}"), "branch": format!("nodwyn/0000000{i}"), "open": i % 2 == 0}))
            .collect();
        let now = stamp_seconds("20261203T103000Z").unwrap();
        let mut chooser = Chooser::new(dir.path(), &sessions, now);
        chooser.step(3);
        let mut terminal = Terminal::new(TestBackend::new(70, 5)).unwrap();
        terminal
            .draw(|frame| chooser.render(frame, frame.area(), false))
            .unwrap();
        let shown = terminal.backend().to_string();
        let shown = shown.replace(&dir.path().display().to_string(), "REPO");
        insta::assert_snapshot!(shown);
    }
}
