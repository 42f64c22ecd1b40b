//! The slash commands an editor thread offers (`available_commands_update`): `/land`, `/diff`,
//! `/review` and `/worktree`. Each runs nodwyn's own guarded path over the engine's protocol
//! (`session.land`, `worktree.diff`), never the model: the person typed it.

use std::path::Path;

use nodwyn_server::client::Client;
use serde_json::{Value, json};

use crate::translate::{Diff, Kind, Status, Update};
use crate::turn::request;

/// A command of the thread: its name (without the slash), what it does, and the hint for what
/// follows it, if anything does.
pub(crate) struct Command {
    pub name: &'static str,
    pub description: &'static str,
    pub hint: Option<&'static str>,
}

/// The commands every thread offers.
pub(crate) const COMMANDS: &[Command] = &[
    Command {
        name: "land",
        description: "Land the session's work on its base: commit, rebase onto the newest base, fast-forward only, credential scan of what leaves",
        hint: Some("the commit message"),
    },
    Command {
        name: "diff",
        description: "Show the session's changes since its base as a diff",
        hint: None,
    },
    Command {
        name: "review",
        description: "Review the session's changes file by file; /land then lands exactly what you saw, or says it changed",
        hint: None,
    },
    Command {
        name: "worktree",
        description: "Say where the session works: its worktree and branch",
        hint: None,
    },
];

/// Where a session works, as the thread knows it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Place {
    /// Its folder (the worktree, or the checkout).
    pub root: std::path::PathBuf,
    /// Its branch, when it works in a worktree.
    pub branch: Option<String>,
}

/// Runs `text` when it is one of the thread's commands: the updates that answer it. `None`:
/// it is a message for the model.
pub(crate) fn run(
    client: &mut Client,
    session: &str,
    place: &Place,
    text: &str,
) -> Option<Vec<Update>> {
    let said = text.trim();
    let (name, rest) = said
        .strip_prefix('/')?
        .split_once(char::is_whitespace)
        .map_or((&said[1..], ""), |(name, rest)| (name, rest.trim()));
    let answered = match name {
        "land" if rest.is_empty() => Ok(vec![Update::Text(
            "Give the commit message: /land MESSAGE".to_owned(),
        )]),
        "land" => request(
            client,
            "session.land",
            json!({"session": session, "message": rest}),
        )
        .map(|landed| {
            vec![Update::Text(
                landed["summary"].as_str().unwrap_or_default().to_owned(),
            )]
        }),
        "diff" => request(client, "worktree.diff", json!({"session": session}))
            .map(|review| vec![Update::Text(diff_text(&review))]),
        "review" => request(client, "worktree.diff", json!({"session": session}))
            .map(|review| review_updates(&review, &place.root)),
        "worktree" => Ok(vec![Update::Text(match &place.branch {
            Some(branch) => format!(
                "The session works in its worktree {} on branch {branch}.",
                place.root.display()
            ),
            None => format!(
                "The session works in {} itself, not in a worktree.",
                place.root.display()
            ),
        })]),
        _ => return None,
    };
    Some(answered.unwrap_or_else(|refused| vec![Update::Text(format!("nodwyn: {refused}"))]))
}

/// A review (`worktree.diff`'s answer) as a fenced diff, each file headed by what changed.
fn diff_text(review: &Value) -> String {
    let files = review["files"].as_array().cloned().unwrap_or_default();
    if files.is_empty() {
        return format!(
            "No changes since {}.",
            short(review["base_commit"].as_str().unwrap_or_default())
        );
    }
    let mut lines = Vec::new();
    for file in &files {
        lines.push(format!(
            "{} {}",
            file["status"].as_str().unwrap_or_default(),
            path_of(file)
        ));
        for hunk in file["hunks"].as_array().into_iter().flatten() {
            lines.push(hunk["header"].as_str().unwrap_or_default().to_owned());
            lines.extend(text_lines(&hunk["lines"]));
        }
        if let Some(note) = file["note"].as_str() {
            lines.push(format!("  note: {note}"));
        }
    }
    // A fence longer than any run of backticks in the changes, so none of their lines closes it.
    let body = lines.join("\n");
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let mut shown = vec![format!("{fence}diff"), body, fence];
    shown.extend(omitted(review));
    shown.join("\n")
}

/// A review as the editor's own diff views: one call of kind `read` whose content is each
/// file's hunks, before and after (the excerpts the review shows, not whole files).
fn review_updates(review: &Value, root: &Path) -> Vec<Update> {
    let files = review["files"].as_array().cloned().unwrap_or_default();
    let id = format!(
        "review-{}",
        short(review["tree"].as_str().unwrap_or_default())
    );
    let diffs: Vec<Diff> = files
        .iter()
        .map(|file| {
            let (mut old, mut new) = (Vec::new(), Vec::new());
            for hunk in file["hunks"].as_array().into_iter().flatten() {
                for line in text_lines(&hunk["lines"]) {
                    // `\ No newline at end of file` and the like belong to neither side.
                    let Some(mark @ ('+' | '-' | ' ')) = line.chars().next() else {
                        continue;
                    };
                    let text = line[1..].to_owned();
                    match mark {
                        '+' => new.push(text),
                        '-' => old.push(text),
                        _ => {
                            old.push(text.clone());
                            new.push(text);
                        }
                    }
                }
            }
            Diff {
                path: root.join(path_of(file)),
                old: (file["status"] != "added").then(|| old.join("\n")),
                new: new.join("\n"),
            }
        })
        .collect();
    let notes: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let note = file["note"].as_str()?;
            Some(format!("{}: {note}", path_of(file)))
        })
        .collect();
    let left_out = omitted(review);
    let whole = notes.is_empty() && left_out.is_empty();
    let mut said = vec![format!(
        "{} file(s) changed since {}; {}",
        files.len(),
        short(review["base_commit"].as_str().unwrap_or_default()),
        if whole {
            "/land lands exactly these, or says what changed since."
        } else {
            "not all of it is shown here (below): read what is not in `nodwyn worktree diff` before you /land."
        }
    )];
    said.extend(notes);
    said.extend(left_out);
    vec![
        Update::ToolCall {
            id: id.clone(),
            title: format!("review: {} file(s) changed", files.len()),
            kind: Kind::Read,
            locations: diffs.iter().map(|d| d.path.clone()).collect(),
            input: Value::Null,
        },
        Update::ToolStatus {
            id,
            status: Status::Completed,
            output: Some(said.join("\n")),
            diffs,
        },
    ]
}

/// The files a review left out, each with why.
fn omitted(review: &Value) -> Vec<String> {
    review["omitted"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| {
            format!(
                "left out: {} ({})",
                o["path"].as_str().unwrap_or_default(),
                o["why"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

fn path_of(file: &Value) -> &str {
    file["path"].as_str().unwrap_or_default()
}

fn text_lines(lines: &Value) -> Vec<String> {
    lines
        .as_array()
        .into_iter()
        .flatten()
        .map(|l| l.as_str().unwrap_or_default().to_owned())
        .collect()
}

fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review() -> Value {
        json!({
            "base_commit": "0123456789abcdef",
            "tree": "fedcba9876543210",
            "files": [{"path": "notes.txt", "status": "modified", "added": 1, "removed": 1,
                       "hunks": [{"header": "@@ -1,2 +1,2 @@",
                                  "lines": [" keep", "-old", "+new", "\\ No newline at end of file"]}]}],
            "omitted": [{"path": ".env", "why": "a credential file"}],
        })
    }

    #[test]
    fn a_diff_is_a_fenced_block_with_what_was_left_out_after_it() {
        assert_eq!(
            diff_text(&review()),
            "```diff\nmodified notes.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n\\ No newline at end of file\n```\nleft out: .env (a credential file)"
        );
        assert_eq!(
            diff_text(&json!({"base_commit": "0123456789abcdef", "files": []})),
            "No changes since 0123456789ab."
        );
    }

    #[test]
    fn a_review_is_one_read_whose_content_is_each_files_before_and_after() {
        let updates = review_updates(&review(), Path::new("/w"));
        assert_eq!(updates.len(), 2);
        let Update::ToolStatus { diffs, output, .. } = &updates[1] else {
            panic!("{updates:?}");
        };
        assert_eq!(
            diffs,
            &vec![Diff {
                path: "/w/notes.txt".into(),
                old: Some("keep\nold".to_owned()),
                new: "keep\nnew".to_owned(),
            }]
        );
        let output = output.as_deref().unwrap();
        assert!(output.contains("left out: .env"), "{output}");
        assert!(output.contains("not all of it is shown here"), "{output}");
    }

    #[test]
    fn a_cut_file_is_said_to_be_cut_and_no_fence_in_the_changes_closes_the_diff() {
        let review = json!({
            "base_commit": "0123456789abcdef",
            "tree": "fedcba9876543210",
            "files": [{"path": "README.md", "status": "modified", "added": 1, "removed": 0,
                       "hunks": [{"header": "@@ -1 +1,2 @@", "lines": [" ```", "+```` x"]}],
                       "note": "cut at 256 KiB"}],
            "omitted": [],
        });
        assert_eq!(
            diff_text(&review),
            "`````diff\nmodified README.md\n@@ -1 +1,2 @@\n ```\n+```` x\n  note: cut at 256 KiB\n`````"
        );
        let updates = review_updates(&review, Path::new("/w"));
        let Update::ToolStatus { output, .. } = &updates[1] else {
            panic!("{updates:?}");
        };
        let output = output.as_deref().unwrap();
        assert!(output.contains("README.md: cut at 256 KiB"), "{output}");
        assert!(!output.contains("exactly these"), "{output}");
    }
}
