//! Review comments sent to a session as one message: an overall note first, then the comments
//! grouped by file and numbered in the order of file and line, each naming its line's number but
//! never its text (file content is not the person's words, and an agent must not take a file's
//! text for an instruction). A comment on a line the session's diff no longer has is refused,
//! naming it, so the agent is never told about code that is not there; so is one whose line
//! reads otherwise now than when the person saw it.

use nodwyn_prim::review::{FileChange, Review};
use nodwyn_protocol::LineComment;

use crate::Error;

/// What a person says about a session's changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Comments {
    /// An overall note.
    pub note: Option<String>,
    /// Comments on lines (of the file as it is now).
    pub lines: Vec<LineComment>,
    /// Comments on whole files: path, text.
    pub files: Vec<(String, String)>,
}

/// The message for the session, checked against `review` (the session's changes now).
pub fn message(review: &Review, comments: &Comments) -> Result<String, Error> {
    if comments.note.is_none() && comments.lines.is_empty() && comments.files.is_empty() {
        return Err(Error::declined(
            "no_comment",
            "give at least one comment, file comment or note".to_owned(),
        ));
    }
    // (path, line; 0 for the whole file, text)
    let mut all: Vec<(&str, u64, &str)> = Vec::new();
    for (path, text) in &comments.files {
        changed(review, path)?;
        all.push((path, 0, text));
    }
    for LineComment {
        path,
        line,
        text,
        line_text,
    } in &comments.lines
    {
        let file = changed(review, path)?;
        let Some(now) = line_now(file, *line) else {
            return Err(Error::Declined {
                code: "comment_off_the_diff",
                sentence: format!(
                    "{path}:{line} is not a line the session's changes have now; comment on a line of the diff (`nodwyn worktree diff` shows them)"
                ),
            });
        };
        if line_text.as_deref().is_some_and(|seen| seen != now) {
            return Err(Error::Declined {
                code: "comment_outdated",
                sentence: format!(
                    "{path}:{line} reads otherwise now than when the comment was written; look at the changes again and comment on the line as it is"
                ),
            });
        }
        all.push((path, *line, text));
    }
    all.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let count = all.len();
    let mut message = vec![format!(
        "Review of your changes ({count} comment{}):",
        if count == 1 { "" } else { "s" }
    )];
    if let Some(note) = &comments.note {
        message.push(String::new());
        message.push(note.clone());
    }
    let mut current = None;
    for (number, (path, line, text)) in all.into_iter().enumerate() {
        if current != Some(path) {
            message.push(String::new());
            message.push(path.to_owned());
            current = Some(path);
        }
        let place = if line == 0 {
            "the whole file".to_owned()
        } else {
            format!("line {line}")
        };
        message.push(format!("  {}. {place}: {text}", number + 1));
    }
    Ok(message.join("\n"))
}

/// The changed file `path` of the review, or the refusal naming it.
fn changed<'a>(
    review: &'a Review,
    path: &str,
) -> Result<&'a nodwyn_prim::review::FileChange, Error> {
    review
        .files
        .iter()
        .find(|file| file.path == path)
        .ok_or_else(|| Error::Declined {
            code: "comment_off_the_diff",
            sentence: format!(
                "{path} is not among the session's changed files; comment on a file of the diff (`nodwyn worktree diff` shows them)"
            ),
        })
}

/// The text of line `line` of `file` as it is now, when one of its hunks shows it (added, or
/// context around a change).
fn line_now(file: &FileChange, line: u64) -> Option<&str> {
    for hunk in file.hunks.iter().flatten() {
        let Some(mut number) = new_start(&hunk.header) else {
            continue;
        };
        for shown in &hunk.lines {
            // Added and context lines are the file as it is now; removed ones are not.
            if let Some(b'+' | b' ') = shown.as_bytes().first() {
                if number == line {
                    return Some(&shown[1..]);
                }
                number += 1;
            }
        }
    }
    None
}

/// The first line of the new side of a hunk header `@@ -a,b +c,d @@`.
fn new_start(header: &str) -> Option<u64> {
    let new = header
        .split_whitespace()
        .find(|part| part.starts_with('+'))?;
    let new = new.trim_start_matches('+');
    new.split_once(',')
        .map_or(new, |(start, _)| start)
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodwyn_prim::review::Hunk;

    fn on(path: &str, line: u64, text: &str) -> LineComment {
        LineComment {
            path: path.to_owned(),
            line,
            text: text.to_owned(),
            line_text: None,
        }
    }

    fn file(path: &str, header: &str, lines: &[&str]) -> FileChange {
        FileChange {
            path: path.to_owned(),
            status: "modified",
            added: Some(1),
            removed: Some(0),
            hunks: Some(vec![Hunk {
                header: header.to_owned(),
                lines: lines.iter().map(|l| (*l).to_owned()).collect(),
            }]),
            note: None,
        }
    }

    fn review() -> Review {
        Review {
            base_commit: "abc".to_owned(),
            tree: "def".to_owned(),
            files: vec![
                file(
                    "src/b.rs",
                    "@@ -10,2 +10,3 @@",
                    &[" a", "+SECRET LINE TEXT", " c"],
                ),
                file("src/a.rs", "@@ -1 +1,2 @@", &["+one", "+two"]),
            ],
            omitted: Vec::new(),
        }
    }

    #[test]
    fn comments_come_grouped_by_file_in_line_order_with_the_note_first_and_no_file_text() {
        let comments = Comments {
            note: Some("Close, but the error path is missing.".to_owned()),
            lines: vec![
                on("src/b.rs", 11, "why this?"),
                on("src/a.rs", 2, "rename"),
                on("src/b.rs", 10, "keep"),
            ],
            files: vec![("src/b.rs".to_owned(), "split this file".to_owned())],
        };
        assert_eq!(
            message(&review(), &comments).unwrap(),
            "Review of your changes (4 comments):\n\nClose, but the error path is missing.\n\nsrc/a.rs\n  1. line 2: rename\n\nsrc/b.rs\n  2. the whole file: split this file\n  3. line 10: keep\n  4. line 11: why this?"
        );
        assert!(
            !message(&review(), &comments)
                .unwrap()
                .contains("SECRET LINE TEXT")
        );
    }

    #[test]
    fn a_line_or_file_the_diff_does_not_have_is_refused_naming_it() {
        let off = Comments {
            lines: vec![on("src/b.rs", 13, "gone")],
            ..Comments::default()
        };
        let error = message(&review(), &off).unwrap_err();
        assert_eq!(error.code(), "comment_off_the_diff");
        assert!(error.to_string().starts_with("src/b.rs:13 is not a line"));
        let other = Comments {
            files: vec![("README.md".to_owned(), "x".to_owned())],
            ..Comments::default()
        };
        assert!(
            message(&review(), &other)
                .unwrap_err()
                .to_string()
                .starts_with("README.md is not among")
        );
        assert!(message(&review(), &Comments::default()).is_err());
    }

    #[test]
    fn a_comment_whose_line_reads_otherwise_now_is_refused_not_moved() {
        let seen = |text: &str| Comments {
            lines: vec![LineComment {
                line_text: Some(text.to_owned()),
                ..on("src/b.rs", 11, "rename this")
            }],
            ..Comments::default()
        };
        assert!(message(&review(), &seen("SECRET LINE TEXT")).is_ok());
        let error = message(&review(), &seen("what line 11 said before")).unwrap_err();
        assert_eq!(error.code(), "comment_outdated");
        assert!(error.to_string().starts_with("src/b.rs:11 reads otherwise"));
        // A context line is a line of the diff too.
        let context = Comments {
            lines: vec![LineComment {
                line_text: Some("c".to_owned()),
                ..on("src/b.rs", 12, "and this")
            }],
            ..Comments::default()
        };
        assert!(message(&review(), &context).is_ok());
    }
}
