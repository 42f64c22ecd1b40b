//! What in a repository's own git configuration can run a program or send a push elsewhere, as a
//! fingerprint: taken when a session starts, and compared before the person's landing and
//! review, so a hook, an fsmonitor or a push URL planted meanwhile (by a command run with the
//! sandbox off) is named before it runs or before work goes there.
//!
//! The fingerprint holds, for each setting of the repository's and the worktree's scope (not the
//! person's own files) whose key can start a program or change where git connects, and for each
//! file of the hooks folder, a digest of its value or content: the record says what changed
//! without holding a URL's embedded token.

use std::collections::BTreeMap;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::Error;
use crate::command::GitCommand;

/// Keys (lowercase, as `git config --list` prints them) that run a program or change where git
/// connects, as exact names or as `section.*.name` patterns.
const WATCHED: &[&str] = &[
    "core.hookspath",
    "core.attributesfile",
    "core.fsmonitor",
    "core.sshcommand",
    "core.askpass",
    "core.editor",
    "core.pager",
    "core.gitproxy",
    "sequence.editor",
    "gpg.program",
    "gpg.*.program",
    "credential.helper",
    "credential.*.helper",
    "filter.*.clean",
    "filter.*.smudge",
    "filter.*.process",
    "diff.external",
    "diff.*.command",
    "diff.*.textconv",
    "merge.*.driver",
    "remote.*.url",
    "remote.*.pushurl",
    "remote.*.proxy",
    "remote.*.uploadpack",
    "remote.*.receivepack",
    "url.*.insteadof",
    "url.*.pushinsteadof",
    "push.default",
    "remote.pushdefault",
    "branch.*.pushremote",
    "branch.*.merge",
    "http.proxy",
    "uploadpack.packobjectshook",
    "include.path",
    "includeif.*.path",
    "alias.*",
];

/// A repository's fingerprint: each watched setting or hook file, and a digest of its value.
pub type Fingerprint = BTreeMap<String, String>;

/// The fingerprint of the repository of the checkout at `dir`.
pub fn fingerprint(dir: &Path) -> Result<Fingerprint, Error> {
    let stdout = GitCommand::new(dir)
        .read_only()
        .args(["config", "--list", "--show-scope", "-z"])
        .run()?;
    let mut found = Fingerprint::new();
    // Each entry is `scope\0key\nvalue\0` (or `scope\0key\0` for a key with no value).
    let mut fields = stdout.split(|b| *b == 0).filter(|f| !f.is_empty());
    while let (Some(scope), Some(entry)) = (fields.next(), fields.next()) {
        if !matches!(scope, b"local" | b"worktree") {
            continue;
        }
        let entry = String::from_utf8_lossy(entry);
        let (key, value) = entry.split_once('\n').unwrap_or((&entry, ""));
        let key = key.to_ascii_lowercase();
        if !WATCHED.iter().any(|pattern| matches(pattern, &key)) {
            continue;
        }
        // A key set several times: each value counts.
        let mut name = key.clone();
        let mut n = 1;
        while found.contains_key(&name) {
            n += 1;
            name = format!("{key}#{n}");
        }
        found.insert(name, digest(value.as_bytes()));
    }
    let hooks = match crate::config::hooks_path(dir)? {
        Some(path) => path,
        None => {
            let common = GitCommand::new(dir)
                .read_only()
                .args(["rev-parse", "--path-format=absolute", "--git-common-dir"])
                .run_text()?;
            Path::new(&common).join("hooks")
        }
    };
    if let Ok(entries) = std::fs::read_dir(&hooks) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".sample") {
                continue;
            }
            let content = std::fs::read(entry.path()).unwrap_or_default();
            found.insert(format!("hooks/{name}"), digest(&content));
        }
    }
    Ok(found)
}

/// What differs between `recorded` and `now`, in words (`core.fsmonitor was added`), in order.
pub fn differences(recorded: &Fingerprint, now: &Fingerprint) -> Vec<String> {
    let mut changes = Vec::new();
    for (key, value) in now {
        match recorded.get(key) {
            None => changes.push(format!("{key} was added")),
            Some(before) if before != value => changes.push(format!("{key} was changed")),
            Some(_) => {}
        }
    }
    for key in recorded.keys().filter(|key| !now.contains_key(*key)) {
        changes.push(format!("{key} was removed"));
    }
    changes
}

fn matches(pattern: &str, key: &str) -> bool {
    match pattern.split_once(".*.") {
        Some((section, name)) => {
            key.starts_with(&format!("{section}."))
                && key.ends_with(&format!(".{name}"))
                && key.len() > section.len() + name.len() + 2
        }
        None => match pattern.strip_suffix(".*") {
            Some(section) => key.starts_with(&format!("{section}.")),
            None => key == pattern,
        },
    }
}

fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watched_keys_are_matched_by_section_and_name() {
        assert!(matches("core.fsmonitor", "core.fsmonitor"));
        assert!(matches("remote.*.pushurl", "remote.origin.pushurl"));
        assert!(matches("remote.*.pushurl", "remote.a.b.pushurl"));
        assert!(!matches("remote.*.pushurl", "remote.pushurl"));
        assert!(!matches("remote.*.url", "remote.origin.fetch"));
        assert!(matches("alias.*", "alias.co"));
        assert!(!matches("core.fsmonitor", "core.fsmonitorhookversion"));
    }

    #[test]
    fn differences_name_what_was_added_changed_and_removed() {
        let recorded = Fingerprint::from([
            ("remote.origin.url".to_owned(), "a".to_owned()),
            ("hooks/pre-push".to_owned(), "b".to_owned()),
        ]);
        let now = Fingerprint::from([
            ("remote.origin.url".to_owned(), "c".to_owned()),
            ("core.fsmonitor".to_owned(), "d".to_owned()),
        ]);
        assert_eq!(
            differences(&recorded, &now),
            [
                "core.fsmonitor was added",
                "remote.origin.url was changed",
                "hooks/pre-push was removed"
            ]
        );
        assert!(differences(&now, &now).is_empty());
    }
}
