//! git configuration files that hold credentials: actions/checkout's `http.*.extraheader`
//! (`AUTHORIZATION: basic ...`) in a repository's `.git/config`, a URL with a token in it
//! (`[url "https://x-access-token:TOKEN@github.com/"] insteadOf = ...`, a remote's URL) in
//! `~/.gitconfig`. Such a file is a credential file, judged by what it holds, since most hold
//! none; and a confined command, which needs the configuration for its own git, is shown it with
//! those entries taken out ([`git_config_without_credentials`]).

use std::path::Path;

/// Whether `path` is a git configuration file: the person's (`~/.gitconfig`,
/// `~/.config/git/config`), a repository's (`.git/config`, a worktree's `config.worktree`).
pub fn is_git_config(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let parent = path
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    name == ".gitconfig"
        || name == "config.worktree"
        || (name == "config" && (parent == ".git" || parent == "git"))
}

/// Whether one line of a git configuration holds a credential: an `extraheader`, a URL with a
/// password or token before its host, or anything the scanner finds.
fn holds_credential(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    if lower.trim_start().starts_with("extraheader") || lower.contains(".extraheader") {
        return true;
    }
    if let Some(at) = lower.find("://") {
        let rest = &line[at + 3..];
        let authority = rest.split(['/', '"', ' ', '\t']).next().unwrap_or_default();
        // `user:password@`, or a token as the user (`ssh://git@host` is no credential).
        if let Some((userinfo, _)) = authority.rsplit_once('@')
            && (userinfo.contains(':') || userinfo.len() >= 20)
        {
            return true;
        }
    }
    !crate::scan::Scanner::global()
        .scan(line.as_bytes())
        .is_empty()
}

/// Whether the configuration `text` holds a credential.
pub fn git_config_holds_credentials(text: &str) -> bool {
    text.lines().any(holds_credential)
}

/// `text` with every entry that holds a credential taken out: such a line, and a section whose
/// header holds one (`[url "https://TOKEN@host/"]`) with all its lines. `None` when nothing
/// was taken out.
pub fn git_config_without_credentials(text: &str) -> Option<String> {
    let mut kept = String::with_capacity(text.len());
    let mut removed = false;
    let mut in_removed_section = false;
    for line in text.split_inclusive('\n') {
        let is_header = line.trim_start().starts_with('[');
        if is_header {
            in_removed_section = holds_credential(line);
        }
        if in_removed_section || holds_credential(line) {
            removed = true;
            continue;
        }
        kept.push_str(line);
    }
    removed.then_some(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_taken_out_of_a_git_configuration_and_the_rest_kept() {
        let token = format!("ghp_{}", "Zq8Lr2Vx9Kp4Tn7Wm1Yb6Hc3Jd5Fg0Se2Ua8");
        let text = format!(
            "[core]\n\tbare = false\n\
             [http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic eC1hY2Nlc3M=\n\
             [url \"https://x-access-token:{token}@github.com/\"]\n\tinsteadOf = https://github.com/\n\
             [remote \"origin\"]\n\turl = https://me:hunter2@example.com/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n\
             [user]\n\tname = Me\n"
        );
        assert!(git_config_holds_credentials(&text));
        let kept = git_config_without_credentials(&text).unwrap();
        assert_eq!(
            kept,
            "[core]\n\tbare = false\n[http \"https://github.com/\"]\n\
             [remote \"origin\"]\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n\
             [user]\n\tname = Me\n"
        );
        assert!(!git_config_holds_credentials(&kept));
        assert_eq!(git_config_without_credentials(&kept), None);
    }

    #[test]
    fn git_configuration_files_are_known_by_their_place() {
        for path in [
            ".gitconfig",
            "h/.config/git/config",
            "r/.git/config",
            "r/.git/worktrees/a/config.worktree",
        ] {
            assert!(is_git_config(Path::new(path)), "{path}");
        }
        assert!(!git_config_holds_credentials(
            "[remote \"origin\"]\n\turl = ssh://git@github.com/me/shop.git\n"
        ));
        for path in ["config", "app/config", "r/.git/HEAD"] {
            assert!(!is_git_config(Path::new(path)), "{path}");
        }
    }
}
