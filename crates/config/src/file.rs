//! The configuration files, resolved into typed settings before any command runs.
//!
//! Two files, the repository's overriding the user's:
//! `~/.config/nodwyn/config.toml` and `<repository>/.nodwyn/config.toml`. A malformed file is an
//! error naming the file and line, never a silent default. The repository's file is repository
//! content (anyone who can commit can write it), so it may only choose settings that give an
//! attacker nothing; today that is `worktrees.location`. `[sandbox]` (how an agent's commands
//! are confined) is the person's alone: in a repository's file it is refused, naming the file.

use std::path::Path;

use anyhow::Context;
use nodwyn_core::host::SandboxChoice;
use nodwyn_core::worktree::WorktreeLocation;
use serde::Deserialize;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    worktrees: WorktreesSection,
    sandbox: Option<SandboxSection>,
    git: Option<GitSection>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct GitSection {
    network_timeout_seconds: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SandboxSection {
    mode: Option<SandboxMode>,
    #[serde(default)]
    writable: Vec<String>,
    network: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum SandboxMode {
    On,
    Off,
    Ask,
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
    /// How commands are confined, from the person's own file only.
    pub sandbox: SandboxChoice,
    /// How long a fetch or push may take (`[git] network_timeout_seconds`), from the person's
    /// own file only.
    pub git_network: Option<std::time::Duration>,
}

impl Settings {
    /// Reads the user's file and, when given, the repository's.
    pub fn resolve(user_file: Option<&Path>, repository: Option<&Path>) -> anyhow::Result<Self> {
        let mut settings = Settings::default();
        let repository_file = repository.map(|r| r.join(".nodwyn").join("config.toml"));
        let user = user_file.map(read).transpose()?.flatten();
        if let Some(seconds) = user
            .as_ref()
            .and_then(|c| c.git.as_ref())
            .and_then(|g| g.network_timeout_seconds)
        {
            settings.git_network = Some(std::time::Duration::from_secs(seconds.max(1)));
        }
        if let Some(sandbox) = user.and_then(|c| c.sandbox) {
            settings.sandbox = SandboxChoice {
                mode: match sandbox.mode {
                    None | Some(SandboxMode::On) => nodwyn_core::host::SandboxMode::On,
                    Some(SandboxMode::Off) => nodwyn_core::host::SandboxMode::Off,
                    Some(SandboxMode::Ask) => nodwyn_core::host::SandboxMode::Ask,
                },
                writable: sandbox
                    .writable
                    .iter()
                    .map(|f| expand_home(f))
                    .collect::<anyhow::Result<_>>()?,
                network: sandbox.network.unwrap_or(true),
            };
        }
        for file in [user_file, repository_file.as_deref()]
            .into_iter()
            .flatten()
        {
            let config = read(file)?;
            if Some(file) == repository_file.as_deref()
                && let Some(config) = &config
            {
                let personal = [
                    ("[sandbox]", config.sandbox.is_some()),
                    ("[git]", config.git.is_some()),
                ];
                if let Some((section, _)) = personal.iter().find(|(_, set)| *set) {
                    anyhow::bail!(
                        "{} sets {section}, which only your own configuration may set (a repository cannot loosen how its agents' commands are confined, nor hold a landing longer)",
                        file.display()
                    );
                }
            }
            if let Some(config) = config
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

/// A folder the person wrote in their configuration: `~` and `~/x` under the home folder, else
/// as written; it must come out absolute (a relative folder would mean a different place for
/// every session).
fn expand_home(folder: &str) -> anyhow::Result<std::path::PathBuf> {
    let home = || std::env::var_os("HOME").map(std::path::PathBuf::from);
    let expanded = match (folder, folder.strip_prefix("~/")) {
        ("~", _) => home(),
        (_, Some(rest)) => home().map(|home| home.join(rest)),
        _ => Some(std::path::PathBuf::from(folder)),
    };
    match expanded {
        Some(path) if path.is_absolute() => Ok(path),
        _ => anyhow::bail!(
            "[sandbox] writable: `{folder}` is not an absolute folder (write it as /path or ~/path)"
        ),
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
    fn only_the_persons_own_file_sets_the_sandbox() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.toml");
        std::fs::write(
            &user,
            "[sandbox]\nwritable = [\"/opt/cache\"]\nnetwork = false\n",
        )
        .unwrap();
        let settings = Settings::resolve(Some(&user), None).unwrap();
        assert_eq!(
            settings.sandbox,
            SandboxChoice {
                mode: nodwyn_core::host::SandboxMode::On,
                writable: vec!["/opt/cache".into()],
                network: false,
            }
        );
        std::fs::create_dir(dir.path().join(".nodwyn")).unwrap();
        std::fs::write(
            dir.path().join(".nodwyn/config.toml"),
            "[sandbox]\nmode = \"off\"\n",
        )
        .unwrap();
        let error = Settings::resolve(Some(&user), Some(dir.path()))
            .unwrap_err()
            .to_string();
        assert!(error.contains("only your own configuration"), "{error}");
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
