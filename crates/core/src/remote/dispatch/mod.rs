//! `nodwyn dispatch`: the tasks of a person fanned out to machines that are not theirs, each
//! running `nodwyn run --headless --push-branch --export` in a clone of the repository at the
//! base commit. Here are the plan both dispatchers share and the files a runner is configured
//! with; [`github`] renders a GitHub Actions workflow and [`kubernetes`] an Indexed Job.
//!
//! Nothing rendered holds a secret's value: the model key is named (a repository secret, a
//! Kubernetes Secret) and reaches the `nodwyn` process's environment alone, which never passes
//! it to the commands the agent runs. The runner's allow list is written from the person's own
//! standing answers (the commands and writes of their untracked `allow.toml`) plus the one push
//! URL the runner's clone has, so each job may push exactly its session's branch there.

pub mod github;
pub mod kubernetes;

use std::path::Path;

use nodwyn_git::repo::{branch_tip, upstream_remote, upstream_tip};

use crate::Error;

/// The branch checked out in `repository` (a dispatch's and an import's default base).
pub fn checked_out_branch(repository: &Path) -> Result<String, Error> {
    let repo = nodwyn_git::repo::open(repository)?;
    nodwyn_git::repo::read_head(&repo, repository)?
        .branch
        .ok_or_else(|| {
            Error::declined(
                "no_base",
                "the repository is on no branch (a detached HEAD): name the base with --base BRANCH",
            )
        })
}

/// Where a dispatch's sessions start and where their branches go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    /// The branch.
    pub branch: String,
    /// Its tip, which its remote's branch holds.
    pub commit: String,
    /// The remote it tracks.
    pub remote: String,
    /// That remote's push URL.
    pub remote_url: String,
}

/// `branch` as a dispatch's base: refused unless it tracks a remote branch that holds its tip
/// (the runners clone the remote, so a commit only here would not be there).
pub fn base_on_remote(repository: &Path, branch: &str) -> Result<Base, Error> {
    if branch.starts_with('-') {
        return Err(Error::declined(
            "bad_base",
            format!("--base {branch} could be read as an option"),
        ));
    }
    let commit = branch_tip(repository, branch)?
        .ok_or_else(|| Error::declined("bad_base", format!("{branch} is not a branch here")))?;
    let remote = upstream_remote(repository, branch)?.ok_or_else(|| {
        Error::declined(
            "no_remote",
            format!(
                "{branch} tracks no remote branch, and the runners clone the remote: push it with `git push -u origin {branch}` first"
            ),
        )
    })?;
    let pushed = match upstream_tip(repository, branch)? {
        Some(on_remote) => nodwyn_git::graph::is_ancestor(repository, &commit, &on_remote)?,
        None => false,
    };
    if !pushed {
        return Err(Error::declined(
            "base_not_pushed",
            format!(
                "{branch} has commits {remote} does not (as last fetched), and the runners clone {remote}: push {branch} first"
            ),
        ));
    }
    let remote_url = nodwyn_git::push::push_urls(repository, &remote)?
        .into_iter()
        .next()
        .unwrap_or_default();
    Ok(Base {
        branch: branch.to_owned(),
        commit,
        remote,
        remote_url,
    })
}

/// The model a runner calls: a profile of the person's configuration, without its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunnerModel {
    /// `openai` or `anthropic`.
    pub provider: String,
    /// Where the server is (reachable from the runner).
    pub base_url: String,
    /// The model's name there.
    pub name: String,
    /// The environment variable the key is read from, when the server wants one.
    pub api_key_env: Option<String>,
}

/// How the runner confines the agent's commands: the person's own `[sandbox]` choices that mean
/// the same on another machine (the sandbox is always on there).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunnerSandbox {
    /// Whether commands may use the network.
    pub network: bool,
    /// At most this many processes.
    pub max_processes: Option<u64>,
    /// Files of at most this many MiB.
    pub max_file_mb: Option<u64>,
    /// At most this many MiB of memory.
    pub max_memory_mb: Option<u64>,
}

/// What a dispatch runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The tasks, one session each.
    pub tasks: Vec<String>,
    /// The branch the sessions start from (its remote's is where their branches go).
    pub base_branch: String,
    /// The commit of it they start from.
    pub base_commit: String,
    /// The model.
    pub model: RunnerModel,
    /// How the runner confines commands.
    pub sandbox: RunnerSandbox,
    /// Command prefixes the agent may run without asking (the person's allow.toml).
    pub commands: Vec<Vec<String>>,
    /// Globs of paths the agent may write without asking (the person's allow.toml).
    pub writes: Vec<String>,
    /// The nodwyn version the runner installs.
    pub version: String,
    /// The git repository the runner builds that version from (its tag `v<version>`); `None`:
    /// crates.io's.
    pub install_git: Option<String>,
    /// Each task's deadline, in minutes.
    pub timeout_minutes: u64,
}

impl Plan {
    /// Refuses a plan no runner could carry out without a person: no task, an empty task, a task
    /// read from standard input, a model server only this machine reaches, or a branch or commit
    /// that is not one.
    pub fn check(&self) -> Result<(), Error> {
        if self.tasks.is_empty() {
            return Err(Error::declined(
                "no_tasks",
                "give at least one task: each runs as a session of its own",
            ));
        }
        if let Some(at) = self
            .tasks
            .iter()
            .position(|t| t.trim().is_empty() || t == "-")
        {
            return Err(Error::declined(
                "bad_task",
                format!(
                    "task {} is {}: a runner has nobody to ask, so each task must say in words what to do",
                    at + 1,
                    if self.tasks[at] == "-" {
                        "`-` (standard input)"
                    } else {
                        "empty"
                    }
                ),
            ));
        }
        if is_only_here(&self.model.base_url) {
            return Err(Error::declined(
                "model_unreachable",
                format!(
                    "the model profile's server is {}, which only this machine reaches, not a runner; choose a profile with a server the runners reach (--model PROFILE)",
                    self.model.base_url
                ),
            ));
        }
        let hex =
            self.base_commit.len() == 40 && self.base_commit.bytes().all(|b| b.is_ascii_hexdigit());
        if !hex || self.base_branch.is_empty() || self.base_branch.starts_with('-') {
            return Err(Error::declined(
                "bad_base",
                format!(
                    "the base must be a branch at a commit ({} at {})",
                    self.base_branch, self.base_commit
                ),
            ));
        }
        Ok(())
    }

    /// The runner's nodwyn configuration: the model, its key named, never given.
    pub(crate) fn config_toml(&self) -> String {
        let mut text = format!(
            "[model]\nprovider = {}\nbase_url = {}\nname = {}\n",
            quoted(&self.model.provider),
            quoted(&self.model.base_url),
            quoted(&self.model.name)
        );
        if let Some(variable) = &self.model.api_key_env {
            text.push_str(&format!("api_key_env = {}\n", quoted(variable)));
        }
        text.push_str(&format!(
            "\n[sandbox]\nmode = \"on\"\nnetwork = {}\n",
            self.sandbox.network
        ));
        for (key, value) in [
            ("max_processes", self.sandbox.max_processes),
            ("max_file_mb", self.sandbox.max_file_mb),
            ("max_memory_mb", self.sandbox.max_memory_mb),
        ] {
            if let Some(value) = value {
                text.push_str(&format!("{key} = {value}\n"));
            }
        }
        text
    }

    /// The runner's allow.toml, but for its push line: the person's commands and writes.
    pub(crate) fn allow_toml(&self) -> String {
        let commands: Vec<String> = self
            .commands
            .iter()
            .map(|words| {
                let words: Vec<String> = words.iter().map(|w| quoted(w)).collect();
                format!("[{}]", words.join(", "))
            })
            .collect();
        let writes: Vec<String> = self.writes.iter().map(|w| quoted(w)).collect();
        format!(
            "commands = [{}]\nwrites = [{}]\n",
            commands.join(", "),
            writes.join(", ")
        )
    }

    /// Gives the clone a commit identity unless the runner's git has one (a headless run's
    /// `--push-branch` commits what the agent left uncommitted).
    pub(crate) fn identity_lines(name: &str, email: &str) -> String {
        format!(
            "git config user.name >/dev/null || git config user.name {}\ngit config user.email >/dev/null || git config user.email {}\n",
            shell_quoted(name),
            shell_quoted(email)
        )
    }

    /// The `nodwyn run` line every runner runs, the task in `$TASK` and its index in
    /// `index_variable`.
    pub(crate) fn run_line(&self, export: &str, index_variable: &str) -> String {
        format!(
            "nodwyn run --headless --push-branch --name \"task-${index_variable}\" --export \"{export}\" -- \"$TASK\""
        )
    }
}

/// Whether `url` names this machine (a runner reaching it would reach itself).
fn is_only_here(url: &str) -> bool {
    let host = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest)
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.split(':').next().unwrap_or_default(),
    };
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host.ends_with(".localhost")
        || host.starts_with("127.")
        || host == "::1"
        || host == "0.0.0.0"
}

/// `text` as a double-quoted string, valid in TOML and in YAML alike.
pub(crate) fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

/// `text` in single quotes for a POSIX shell.
pub(crate) fn shell_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// `text` indented by `spaces` on every line (for a YAML block scalar).
pub(crate) fn indented(text: &str, spaces: usize) -> String {
    let pad = " ".repeat(spaces);
    text.lines()
        .map(|line| {
            if line.is_empty() {
                String::new()
            } else {
                format!("{pad}{line}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runners_configuration_keeps_the_persons_sandbox_and_names_the_key_only() {
        let plan = Plan {
            tasks: vec!["t".to_owned()],
            base_branch: "main".to_owned(),
            base_commit: "a".repeat(40),
            model: RunnerModel {
                provider: "openai".to_owned(),
                base_url: "https://models.example.com/v1".to_owned(),
                name: "coder".to_owned(),
                api_key_env: Some("MODEL_KEY".to_owned()),
            },
            sandbox: RunnerSandbox {
                network: false,
                max_processes: Some(64),
                max_file_mb: None,
                max_memory_mb: Some(2048),
            },
            commands: vec![vec!["cargo".to_owned(), "test".to_owned()]],
            writes: vec!["src/**".to_owned()],
            version: "0.1.0".to_owned(),
            install_git: None,
            timeout_minutes: 30,
        };
        let config = plan.config_toml();
        let parsed: toml::Table = config.parse().unwrap();
        assert_eq!(parsed["model"]["api_key_env"].as_str(), Some("MODEL_KEY"));
        assert_eq!(parsed["sandbox"]["mode"].as_str(), Some("on"));
        assert_eq!(parsed["sandbox"]["network"].as_bool(), Some(false));
        assert_eq!(parsed["sandbox"]["max_processes"].as_integer(), Some(64));
        assert_eq!(parsed["sandbox"]["max_memory_mb"].as_integer(), Some(2048));
        assert!(parsed["sandbox"].get("max_file_mb").is_none());
        let allow: toml::Table = plan.allow_toml().parse().unwrap();
        assert_eq!(allow["writes"][0].as_str(), Some("src/**"));
        assert_eq!(shell_quoted("it's"), "'it'\\''s'");
    }

    #[test]
    fn a_server_only_this_machine_reaches_is_recognised() {
        for url in [
            "http://localhost:11434/v1",
            "http://127.0.0.1:8080",
            "http://[::1]:9/v1",
            "https://user@LOCALHOST/v1",
            "http://0.0.0.0:1234",
        ] {
            assert!(is_only_here(url), "{url}");
        }
        for url in ["https://api.openai.com/v1", "http://models.internal:8000"] {
            assert!(!is_only_here(url), "{url}");
        }
    }
}
