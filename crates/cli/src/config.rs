//! Configuration files, resolved into typed settings before any command runs.
//!
//! Two files, the repository's overriding the user's:
//! `~/.config/nodwyn/config.toml` and `<repository>/.nodwyn/config.toml`. A malformed file is an
//! error naming the file and line, never a silent default. The repository's file is repository
//! content (anyone who can commit can write it), so it may only choose settings that give an
//! attacker nothing; today that is `worktrees.location`.

use std::path::Path;

use anyhow::Context;
use nodwyn_core::worktree::WorktreeLocation;
use serde::Deserialize;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    worktrees: WorktreesSection,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorktreesSection {
    location: Option<Location>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Location {
    Repository,
    Data,
}

/// The settings a command runs with.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Where new worktrees go.
    pub worktree_location: WorktreeLocation,
}

impl Settings {
    /// Reads the user's file and, when given, the repository's.
    pub fn resolve(user_file: Option<&Path>, repository: Option<&Path>) -> anyhow::Result<Self> {
        let mut settings = Settings::default();
        let repository_file = repository.map(|r| r.join(".nodwyn").join("config.toml"));
        for file in [user_file, repository_file.as_deref()]
            .into_iter()
            .flatten()
        {
            if let Some(config) = read(file)?
                && let Some(location) = config.worktrees.location
            {
                settings.worktree_location = match location {
                    Location::Repository => WorktreeLocation::Repository,
                    Location::Data => WorktreeLocation::Data,
                };
            }
        }
        Ok(settings)
    }
}

fn read(path: &Path) -> anyhow::Result<Option<ConfigFile>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        // No file, or no folder to hold it (`.nodwyn` a plain file is refused later, in words).
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        Err(e) => return Err(e).with_context(|| format!("could not read {}", path.display())),
    };
    toml::from_str(&text).map(Some).map_err(|e| {
        let line = e
            .span()
            .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1);
        let message = e.message().trim_end_matches('\n').replace('\n', " ");
        match line {
            Some(line) => anyhow::anyhow!("{} line {line}: {message}", path.display()),
            None => anyhow::anyhow!("{}: {message}", path.display()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_file_overrides_the_users() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.toml");
        std::fs::write(&user, "[worktrees]\nlocation = \"data\"\n").unwrap();
        let settings = Settings::resolve(Some(&user), None).unwrap();
        assert_eq!(settings.worktree_location, WorktreeLocation::Data);
        std::fs::create_dir(dir.path().join(".nodwyn")).unwrap();
        std::fs::write(
            dir.path().join(".nodwyn/config.toml"),
            "[worktrees]\nlocation = \"repository\"\n",
        )
        .unwrap();
        let settings = Settings::resolve(Some(&user), Some(dir.path())).unwrap();
        assert_eq!(settings.worktree_location, WorktreeLocation::Repository);
    }

    #[test]
    fn a_malformed_file_names_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("config.toml");
        std::fs::write(&user, "# settings\n[worktrees]\nlocaton = \"data\"\n").unwrap();
        let error = Settings::resolve(Some(&user), None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("config.toml line 3"), "{error}");
        assert!(error.contains("locaton"), "{error}");
    }
}
