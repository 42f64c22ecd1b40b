//! The configuration files, resolved into typed settings before any command runs.
//!
//! Two files, the repository's overriding the user's:
//! `~/.config/nodwyn/config.toml` and `<repository>/.nodwyn/config.toml`. A malformed file is an
//! error naming the file and line, never a silent default. The repository's file is repository
//! content (anyone who can commit can write it), so it may only choose settings that give an
//! attacker nothing; today that is `worktrees.location`. `[sandbox]` (how an agent's commands
//! are confined) is the person's alone: in a repository's file it is refused, naming the file.

use std::path::Path;

use std::collections::BTreeMap;

use anyhow::Context;
use nodwyn_protocol::settings::{CommandLimits, SandboxChoice, WorktreeLocation};
use serde::Deserialize;

use crate::model::{DEFAULT_PROFILE, ModelProfile, ModelSection, profiles};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    worktrees: WorktreesSection,
    sandbox: Option<SandboxSection>,
    git: Option<GitSection>,
    model: Option<ModelSection>,
    #[serde(default)]
    models: BTreeMap<String, ModelSection>,
    #[serde(default)]
    run: RunSection,
    judge: Option<JudgeSection>,
    serve: Option<ServeSection>,
    acp: Option<AcpSection>,
    hooks: Option<HooksSection>,
    dispatch: Option<DispatchSection>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DispatchSection {
    timeout_minutes: Option<u64>,
    install_git: Option<String>,
    image: Option<String>,
    secret: Option<String>,
    secret_key: Option<String>,
    cpu: Option<String>,
    memory: Option<String>,
}

/// How `nodwyn dispatch` runs tasks elsewhere (`[dispatch]`, from the person's own file only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchChoice {
    /// Each task's deadline, in minutes (`timeout_minutes`, default 60).
    pub timeout_minutes: u64,
    /// GitHub Actions: the git repository runners build nodwyn from, at the tag `v<version>`
    /// (default: crates.io's `nodwyn` of this version).
    pub install_git: Option<String>,
    /// Kubernetes: the container image (nodwyn, git, and credentials that may push).
    pub image: Option<String>,
    /// Kubernetes: the Secret holding the model key (default `nodwyn-model-key`).
    pub secret: String,
    /// Kubernetes: its key holding it (default `key`).
    pub secret_key: String,
    /// Kubernetes: processor each pod requests (default `2`).
    pub cpu: String,
    /// Kubernetes: memory each pod requests and may use (default `4Gi`).
    pub memory: String,
}

impl Default for DispatchChoice {
    fn default() -> Self {
        Self {
            timeout_minutes: 60,
            install_git: None,
            image: None,
            secret: "nodwyn-model-key".to_owned(),
            secret_key: "key".to_owned(),
            cpu: "2".to_owned(),
            memory: "4Gi".to_owned(),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct HooksSection {
    timeout_seconds: Option<u64>,
    #[serde(default)]
    post_create: Vec<Vec<String>>,
    #[serde(default)]
    post_resume: Vec<Vec<String>>,
    #[serde(default)]
    pre_remove: Vec<Vec<String>>,
    #[serde(default)]
    post_land: Vec<Vec<String>>,
}

pub use nodwyn_protocol::settings::{HOOK_TIMEOUT, HookChoice};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AcpSection {
    permission_timeout_seconds: Option<u64>,
    worktree: Option<Mode>,
}

/// How `nodwyn acp` serves an editor (`[acp]`, from the person's own file only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcpChoice {
    /// How long a permission prompt waits for the person before it is declined
    /// (`permission_timeout_seconds`, default 300: some editors never show one).
    pub permission_timeout: std::time::Duration,
    /// Where a new editor thread's session works (`worktree`, default `always`: a thread that
    /// edited the checkout the person has open would fight their own edits).
    pub worktree: WorktreeMode,
}

impl Default for AcpChoice {
    fn default() -> Self {
        Self {
            permission_timeout: std::time::Duration::from_secs(300),
            worktree: WorktreeMode::Always,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServeSection {
    approval_timeout_seconds: Option<u64>,
}

/// How long `nodwyn serve` waits for an answer to a question before declining it, unless the
/// person's configuration says otherwise (`[serve] approval_timeout_seconds`).
pub const APPROVAL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct JudgeSection {
    model: String,
    timeout_seconds: Option<u64>,
}

/// The model that judges ordinary questions before the person is asked (`[judge]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgeChoice {
    /// The model profile (`default` for `[model]`).
    pub profile: String,
    /// How long it may take to answer.
    pub timeout: std::time::Duration,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunSection {
    max_turns: Option<u32>,
    max_tokens: Option<u64>,
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
    unix_sockets: Option<bool>,
    max_processes: Option<u64>,
    max_file_mb: Option<u64>,
    max_memory_mb: Option<u64>,
    namespaces: Option<bool>,
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
    mode: Option<Mode>,
    /// `FIRST-LAST`: the ports worktree sessions are given (the person's own file only).
    ports: Option<String>,
    /// Days a forced removal's snapshot is kept before `prune` drops it (the person's own file
    /// only).
    snapshot_days: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Mode {
    Auto,
    Always,
    Off,
}

impl From<Mode> for WorktreeMode {
    fn from(mode: Mode) -> Self {
        match mode {
            Mode::Auto => Self::Auto,
            Mode::Always => Self::Always,
            Mode::Off => Self::Off,
        }
    }
}

/// Where an agent's session works (`[worktrees] mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WorktreeMode {
    /// In the checkout until the first call that would change anything, then in its own
    /// worktree (the default).
    #[default]
    Auto,
    /// In its own worktree from the start.
    Always,
    /// In the checkout itself.
    Off,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Location {
    Repository,
    Data,
}

/// How long `worktree prune` keeps a forced removal's snapshot unless the person says otherwise.
pub const SNAPSHOT_AGE: std::time::Duration = std::time::Duration::from_secs(30 * 86_400);

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
    /// Where an agent's session works.
    pub worktree_mode: WorktreeMode,
    /// The ports worktree sessions are given one of (`[worktrees] ports`, from the person's own
    /// file only; default 10000-19999).
    pub worktree_ports: nodwyn_protocol::settings::PortRange,
    /// How long `prune` keeps a forced removal's snapshot (`[worktrees] snapshot_days`, from the
    /// person's own file only); see [`Settings::snapshot_age`].
    snapshot_age: Option<std::time::Duration>,
    /// At most this many model calls in a run (`[run] max_turns`).
    pub max_turns: Option<u32>,
    /// At most this many tokens in a run (`[run] max_tokens`).
    pub max_tokens: Option<u64>,
    /// The model profiles, by name (`default` is `[model]`).
    models: BTreeMap<String, ModelSection>,
    /// The judge model, from the person's own file only.
    pub judge: Option<JudgeChoice>,
    /// How long `nodwyn serve` waits for a client to answer a question before declining it
    /// (`[serve] approval_timeout_seconds`, from the person's own file only; default
    /// [`APPROVAL_TIMEOUT`]).
    pub approval_timeout: Option<std::time::Duration>,
    /// How `nodwyn acp` serves an editor (`[acp]`, from the person's own file only).
    pub acp: AcpChoice,
    /// The person's worktree hooks and their deadline (`[hooks]`, from the person's own file).
    pub hooks: HookChoice,
    /// How `nodwyn dispatch` runs tasks elsewhere (`[dispatch]`, from the person's own file).
    pub dispatch: DispatchChoice,
}

impl Settings {
    /// How long `worktree prune` keeps a forced removal's snapshot: the person's
    /// `[worktrees] snapshot_days`, else [`SNAPSHOT_AGE`].
    pub fn snapshot_age(&self) -> std::time::Duration {
        self.snapshot_age.unwrap_or(SNAPSHOT_AGE)
    }

    /// The model profile `name` (`None`: the default, `[model]`), or a sentence saying how to
    /// configure one.
    pub fn model(&self, name: Option<&str>) -> anyhow::Result<ModelProfile> {
        let profile = name.unwrap_or(DEFAULT_PROFILE);
        match self.models.get(profile) {
            Some(section) => section.resolve(profile),
            None if name.is_none() => anyhow::bail!(
                "no model is configured: add a [model] section to {} with provider (\"openai\" or \"anthropic\"), base_url, name and, for a server that wants a key, api_key_env (docs/agent.md shows examples for Ollama, llama.cpp, vLLM, OpenAI, OpenRouter and Anthropic)",
                crate::user_config_file()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| "~/.config/nodwyn/config.toml".to_owned())
            ),
            None => {
                let known: Vec<&str> = self.models.keys().map(String::as_str).collect();
                anyhow::bail!(
                    "there is no [models.{profile}] in your configuration (profiles: {})",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                )
            }
        }
    }

    /// Reads the user's file and, when given, the repository's.
    pub fn resolve(user_file: Option<&Path>, repository: Option<&Path>) -> anyhow::Result<Self> {
        let mut settings = Settings::default();
        let repository_file = repository.map(|r| r.join(".nodwyn").join("config.toml"));
        let user = user_file.map(read).transpose()?.flatten();
        let repository_config = repository_file.as_deref().map(read).transpose()?.flatten();
        let no_profiles = BTreeMap::new();
        settings.models = profiles(
            (
                user.as_ref().and_then(|c| c.model.as_ref()),
                user.as_ref().map_or(&no_profiles, |c| &c.models),
            ),
            match (&repository_file, &repository_config) {
                (Some(file), Some(config)) => {
                    Some((file.as_path(), config.model.as_ref(), &config.models))
                }
                _ => None,
            },
        )?;
        if let Some(seconds) = user
            .as_ref()
            .and_then(|c| c.git.as_ref())
            .and_then(|g| g.network_timeout_seconds)
        {
            settings.git_network = Some(std::time::Duration::from_secs(seconds.max(1)));
        }
        if let Some(dispatch) = user.as_ref().and_then(|c| c.dispatch.as_ref()) {
            let chosen = &mut settings.dispatch;
            if let Some(minutes) = dispatch.timeout_minutes {
                chosen.timeout_minutes = minutes.max(1);
            }
            chosen.image.clone_from(&dispatch.image);
            chosen.install_git.clone_from(&dispatch.install_git);
            for (value, field) in [
                (&dispatch.secret, &mut chosen.secret),
                (&dispatch.secret_key, &mut chosen.secret_key),
                (&dispatch.cpu, &mut chosen.cpu),
                (&dispatch.memory, &mut chosen.memory),
            ] {
                if let Some(value) = value {
                    field.clone_from(value);
                }
            }
        }
        if let Some(judge) = user.as_ref().and_then(|c| c.judge.as_ref()) {
            settings.judge = Some(JudgeChoice {
                profile: judge.model.clone(),
                timeout: std::time::Duration::from_secs(judge.timeout_seconds.unwrap_or(30).max(1)),
            });
        }
        if let Some(seconds) = user
            .as_ref()
            .and_then(|c| c.serve.as_ref())
            .and_then(|s| s.approval_timeout_seconds)
        {
            settings.approval_timeout = Some(std::time::Duration::from_secs(seconds.max(1)));
        }
        if let Some(ports) = user.as_ref().and_then(|c| c.worktrees.ports.as_deref()) {
            settings.worktree_ports = ports.parse().map_err(|why: String| {
                anyhow::anyhow!(
                    "[worktrees] ports in {}: {why}",
                    user_file.map_or_else(String::new, |f| f.display().to_string())
                )
            })?;
        }
        if let Some(days) = user.as_ref().and_then(|c| c.worktrees.snapshot_days) {
            settings.snapshot_age =
                Some(std::time::Duration::from_secs(days.saturating_mul(86_400)));
        }
        if let Some(hooks) = user.as_ref().and_then(|c| c.hooks.as_ref()) {
            settings.hooks = HookChoice {
                commands: nodwyn_protocol::settings::HookCommands {
                    post_create: hooks.post_create.clone(),
                    post_resume: hooks.post_resume.clone(),
                    pre_remove: hooks.pre_remove.clone(),
                    post_land: hooks.post_land.clone(),
                },
                timeout: hooks
                    .timeout_seconds
                    .map_or(HOOK_TIMEOUT, |s| std::time::Duration::from_secs(s.max(1))),
            };
        }
        if let Some(acp) = user.as_ref().and_then(|c| c.acp.as_ref()) {
            let chosen = &mut settings.acp;
            if let Some(seconds) = acp.permission_timeout_seconds {
                chosen.permission_timeout = std::time::Duration::from_secs(seconds.max(1));
            }
            if let Some(mode) = acp.worktree {
                chosen.worktree = mode.into();
            }
        }
        if let Some(sandbox) = user.and_then(|c| c.sandbox) {
            settings.sandbox = SandboxChoice {
                mode: match sandbox.mode {
                    None | Some(SandboxMode::On) => nodwyn_protocol::settings::SandboxMode::On,
                    Some(SandboxMode::Off) => nodwyn_protocol::settings::SandboxMode::Off,
                    Some(SandboxMode::Ask) => nodwyn_protocol::settings::SandboxMode::Ask,
                },
                writable: sandbox
                    .writable
                    .iter()
                    .map(|f| expand_home(f))
                    .collect::<anyhow::Result<_>>()?,
                network: sandbox.network.unwrap_or(true),
                unix_sockets: sandbox.unix_sockets.unwrap_or(false),
                limits: {
                    let mib = |value: Option<u64>| value.map(|m| m.saturating_mul(1 << 20));
                    CommandLimits {
                        processes: sandbox.max_processes,
                        file_size: mib(sandbox.max_file_mb),
                        memory: mib(sandbox.max_memory_mb),
                    }
                },
                namespaces: sandbox.namespaces.unwrap_or(true),
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
                    ("[judge]", config.judge.is_some()),
                    ("[serve]", config.serve.is_some()),
                    ("[acp]", config.acp.is_some()),
                    ("[hooks]", config.hooks.is_some()),
                    ("[dispatch]", config.dispatch.is_some()),
                    ("[worktrees] ports", config.worktrees.ports.is_some()),
                    (
                        "[worktrees] snapshot_days",
                        config.worktrees.snapshot_days.is_some(),
                    ),
                ];
                if let Some((section, _)) = personal.iter().find(|(_, set)| *set) {
                    anyhow::bail!(
                        "{} sets {section}, which only your own configuration may set (a repository cannot loosen how its agents' commands are confined, hold a landing longer, or choose who approves its agents' actions)",
                        file.display()
                    );
                }
            }
            let Some(config) = config else { continue };
            if let Some(location) = config.worktrees.location {
                settings.worktree_location = match location {
                    Location::Repository => WorktreeLocation::Repository,
                    Location::Data => WorktreeLocation::Data,
                };
            }
            if let Some(mode) = config.worktrees.mode {
                settings.worktree_mode = mode.into();
            }
            // A repository may lower the person's limits, never raise them.
            settings.max_turns = lowest(settings.max_turns, config.run.max_turns);
            settings.max_tokens = lowest(settings.max_tokens, config.run.max_tokens);
        }
        Ok(settings)
    }
}

/// The lower of two limits, either of which may be unset.
fn lowest<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
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
    fn the_editor_agent_is_chosen_in_the_persons_file_only() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.toml");
        assert_eq!(
            Settings::resolve(None, None).unwrap().acp,
            AcpChoice {
                permission_timeout: std::time::Duration::from_secs(300),
                worktree: WorktreeMode::Always,
            }
        );
        std::fs::write(
            &user,
            "[acp]\npermission_timeout_seconds = 20\nworktree = \"auto\"\n",
        )
        .unwrap();
        let settings = Settings::resolve(Some(&user), None).unwrap();
        assert_eq!(settings.acp.permission_timeout.as_secs(), 20);
        assert_eq!(settings.acp.worktree, WorktreeMode::Auto);
        std::fs::create_dir(dir.path().join(".nodwyn")).unwrap();
        std::fs::write(
            dir.path().join(".nodwyn/config.toml"),
            "[acp]\nworktree = \"off\"\n",
        )
        .unwrap();
        let refused = Settings::resolve(Some(&user), Some(dir.path())).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("sets [acp], which only your own configuration may set"),
            "{refused}"
        );
    }

    #[test]
    fn a_limit_the_person_leaves_out_stays_nodwyns_own() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.toml");
        std::fs::write(&user, "[sandbox]\nmax_file_mb = 3\nmax_processes = 64\n").unwrap();
        let settings = Settings::resolve(Some(&user), None).unwrap();
        assert_eq!(
            settings.sandbox.limits,
            CommandLimits {
                processes: Some(64),
                file_size: Some(3 << 20),
                memory: None,
            }
        );
    }

    #[test]
    fn only_the_persons_own_file_sets_the_sandbox() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.toml");
        std::fs::write(
            &user,
            "[sandbox]\nwritable = [\"/opt/cache\"]\nnetwork = false\nunix_sockets = true\n",
        )
        .unwrap();
        let settings = Settings::resolve(Some(&user), None).unwrap();
        assert_eq!(
            settings.sandbox,
            SandboxChoice {
                mode: nodwyn_protocol::settings::SandboxMode::On,
                writable: vec!["/opt/cache".into()],
                network: false,
                unix_sockets: true,
                limits: CommandLimits::default(),
                namespaces: true,
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

    #[test]
    fn model_profiles_come_from_the_person_and_a_repository_cannot_redirect_them() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.toml");
        std::fs::write(
            &user,
            "[model]\nbase_url = \"http://127.0.0.1:11434/v1\"\nname = \"qwen\"\n\n[models.claude]\nprovider = \"anthropic\"\nbase_url = \"https://api.anthropic.com\"\nname = \"claude-sonnet-4-5\"\napi_key_env = \"ANTHROPIC_API_KEY\"\n\n[run]\nmax_turns = 9\n",
        )
        .unwrap();
        let settings = Settings::resolve(Some(&user), None).unwrap();
        let default = settings.model(None).unwrap();
        assert_eq!(default.provider, crate::ModelProvider::OpenAi);
        assert_eq!(default.name, "qwen");
        assert!(default.stream_tools);
        let claude = settings.model(Some("claude")).unwrap();
        assert_eq!(claude.provider, crate::ModelProvider::Anthropic);
        assert_eq!(claude.api_key_env.as_deref(), Some("ANTHROPIC_API_KEY"));
        assert_eq!(settings.max_turns, Some(9));
        let unknown = settings.model(Some("gpt")).unwrap_err().to_string();
        assert!(unknown.contains("claude, default"), "{unknown}");

        // The repository may describe the server, choose the worktree mode, lower the limits...
        std::fs::create_dir(dir.path().join(".nodwyn")).unwrap();
        let repository_file = dir.path().join(".nodwyn/config.toml");
        std::fs::write(
            &repository_file,
            "[worktrees]\nmode = \"always\"\n[model]\ncontext_tokens = 8192\nstream_tools = false\n[run]\nmax_turns = 4\n",
        )
        .unwrap();
        let settings = Settings::resolve(Some(&user), Some(dir.path())).unwrap();
        assert_eq!(settings.worktree_mode, WorktreeMode::Always);
        let default = settings.model(None).unwrap();
        assert_eq!(
            (default.context_tokens, default.stream_tools),
            (Some(8192), false)
        );
        assert_eq!(default.name, "qwen");
        assert_eq!(default.base_url, "http://127.0.0.1:11434/v1");
        assert_eq!(settings.max_turns, Some(4));
        // ...but not raise them,
        std::fs::write(&repository_file, "[run]\nmax_turns = 900\n").unwrap();
        let settings = Settings::resolve(Some(&user), Some(dir.path())).unwrap();
        assert_eq!(settings.max_turns, Some(9));

        // and never choose where the requests go, which key they carry, or what you pay for.
        for line in [
            "base_url = \"https://attacker.example\"",
            "api_key_env = \"AWS_SECRET_ACCESS_KEY\"",
            "name = \"the-most-expensive-model\"",
            "max_output_tokens = 100000",
        ] {
            std::fs::write(&repository_file, format!("[models.claude]\n{line}\n")).unwrap();
            let error = Settings::resolve(Some(&user), Some(dir.path()))
                .unwrap_err()
                .to_string();
            assert!(error.contains("only your own configuration may"), "{error}");
        }
    }

    #[test]
    fn no_model_says_how_to_configure_one() {
        let error = Settings::resolve(None, None)
            .unwrap()
            .model(None)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("no model is configured: add a [model] section"),
            "{error}"
        );
    }
}
