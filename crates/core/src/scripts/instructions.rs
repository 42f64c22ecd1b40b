//! What the agent is told about the repository: its instructions for agents, read from the
//! session's folder. `AGENTS.override.md` (the person's own, ignored by git, copied into each new
//! worktree) first, then `AGENTS.md`, else `CLAUDE.md`. Only plain files (a link is not
//! followed: a repository could otherwise point one at a credential file), every credential in
//! them replaced by the scanner's marker, each cut to [`LONGEST`] characters with a note.

use std::path::Path;

use nodwyn_scheme::Instructions;

use super::strategy::read_plain;

/// The most characters of one file the prompt carries.
pub const LONGEST: usize = 32 * 1024;

/// The person's own instructions, read before the repository's.
pub(crate) const OVERRIDE: &str = "AGENTS.override.md";

/// The instructions in `root`, and notes on files that could not be read.
pub fn read(root: &Path) -> (Vec<Instructions>, Vec<String>) {
    let mut files = Vec::new();
    let mut notes = Vec::new();
    let mut read_one = |name: &str| -> bool {
        match read_plain(&root.join(name)) {
            Ok(Some(text)) => {
                files.push(cut(name, &text));
                true
            }
            Ok(None) => false,
            Err(why) => {
                notes.push(format!("{why}; the agent is not told what it says"));
                false
            }
        }
    };
    read_one(OVERRIDE);
    if !read_one("AGENTS.md") {
        read_one("CLAUDE.md");
    }
    (files, notes)
}

fn cut(name: &str, text: &str) -> Instructions {
    let text = nodwyn_guard::Scanner::global().redact(text);
    let count = text.chars().count();
    let kept: String = text.chars().take(LONGEST).collect();
    Instructions {
        path: name.to_owned(),
        text: kept.trim_end().to_owned(),
        left_out: count.saturating_sub(LONGEST),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_override_comes_first_claude_md_only_without_agents_md_and_links_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("CLAUDE.md"), "claude\n").unwrap();
        let (files, _) = read(root);
        assert_eq!(files[0].path, "CLAUDE.md");

        std::fs::write(root.join("AGENTS.md"), "agents\n").unwrap();
        std::fs::write(root.join(OVERRIDE), "mine\n").unwrap();
        let (files, notes) = read(root);
        let names: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(names, [OVERRIDE, "AGENTS.md"]);
        assert!(notes.is_empty());

        std::fs::remove_file(root.join("AGENTS.md")).unwrap();
        std::fs::write(root.join("secret"), "aws_secret_access_key = x\n").unwrap();
        std::os::unix::fs::symlink(root.join("secret"), root.join("AGENTS.md")).unwrap();
        let (files, notes) = read(root);
        assert!(files.iter().all(|f| f.path != "AGENTS.md"), "{files:?}");
        assert!(notes[0].contains("is a link"), "{notes:?}");
    }

    #[test]
    fn long_files_are_cut_and_credentials_redacted() {
        let dir = tempfile::tempdir().unwrap();
        let token = "ghp_Xk9mQ2vR7tL4wN8pZ3cB6yH1dF5gJ0sA2eUq";
        std::fs::write(
            dir.path().join("AGENTS.md"),
            format!("use {token}\n{}", "x".repeat(LONGEST + 10)),
        )
        .unwrap();
        let (files, _) = read(dir.path());
        assert!(!files[0].text.contains(token));
        assert!(files[0].left_out > 0);
    }
}
