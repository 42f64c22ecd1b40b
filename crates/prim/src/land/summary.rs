//! A landing told in words: the one summary `nodwyn land`, chat's `/land`, the protocol's
//! `session.land` and every front-end on it show, so each says the same thing.

use super::{Landed, LocalBase};

impl Landed {
    /// What the landing did, in lines a person reads: what landed where, what was committed
    /// and left out, the push, the local base, and the backup of the branch's old tip.
    pub fn summary(&self) -> String {
        let landed = self;
        let mut lines = vec![if landed.commits == 0 {
            format!(
                "{} was already on {}: {} is {}",
                landed.branch,
                landed.base,
                landed.base,
                short_commit(&landed.landed)
            )
        } else {
            format!(
                "landed {} commit(s) of {} on {} ({}): {} is now {}",
                landed.commits,
                landed.branch,
                landed.base,
                landed.strategy,
                landed.base,
                short_commit(&landed.landed)
            )
        }];
        if let Some(commit) = &landed.committed {
            lines.push(format!("committed the changes as {}", short_commit(commit)));
            if !landed.new_files.is_empty() {
                lines.push(format!(
                    "new files in it: {}",
                    printable(&landed.new_files.join(", "))
                ));
            }
            if !landed.left_out.is_empty() {
                lines.push(format!(
                    "left out of the commit (credential files): {}",
                    printable(&landed.left_out.join(", "))
                ));
            }
        } else if !landed.left_out.is_empty() {
            lines.push(format!(
                "not committed (credential files): {}",
                printable(&landed.left_out.join(", "))
            ));
        }
        if !landed.not_written.is_empty() {
            lines.push(format!(
                "left in the worktree, not landed (made by commands, not written by a primitive, or a killed write's temporary file): {}",
                printable(&landed.not_written.join(", "))
            ));
        }
        if let Some(push) = &landed.pushed {
            lines.push(format!(
                "pushed to {} ({}) {} ({} -> {})",
                push.remote,
                printable(&push.urls.join(", ")),
                push.reference,
                push.old.as_deref().map_or("none", short_commit),
                short_commit(&push.new)
            ));
        }
        lines.push(match &landed.local_base {
            LocalBase::Moved => format!("local {} moved (no checkout has it)", landed.base),
            LocalBase::Merged { checkout } => format!(
                "local {} fast-forwarded in {}",
                landed.base,
                checkout.display()
            ),
            LocalBase::Unchanged => format!("local {} already there", landed.base),
            LocalBase::Left { why } => format!("local {} left alone: {why}", landed.base),
        });
        if let Some(backup) = &landed.backup {
            lines.push(format!(
                "{}'s tip before the landing is kept in {backup}",
                landed.branch
            ));
        }
        if let Some(why) = &landed.branch_left {
            lines.push(why.clone());
        }
        lines.join("\n")
    }
}

/// The first 12 hex digits of a commit id.
fn short_commit(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}

/// `text` on one line with its controls shown, never obeyed (file names and URLs come from
/// the repository).
fn printable(text: &str) -> String {
    nodwyn_text::escape_line(text)
}
