//! One way to assemble the engine: the person's configuration and environment in, what a
//! session's turns need out (its settings, the host settings with an interrupt of its own, its
//! services with the judge model, the model, the agent's options). `nodwyn run`, `chat`, `worktree review` and
//! `nodwyn serve` all assemble through here.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::bail;
use nodwyn_agent::Options;
use nodwyn_config::{ModelProfile, ModelProvider, Settings, WorktreeMode};
use nodwyn_core::Store;
use nodwyn_core::host::HostSettings;
use nodwyn_core::prim::{Interrupt, Registry};
use nodwyn_core::scripts::ScriptOptions;
use nodwyn_core::services::{Services, SharedJudge};
use nodwyn_core::worktree::NewWorktree;
use nodwyn_model::{ApiKey, Client, Profile, Provider};

/// What every session of an engine shares: the data directory, the primitives, what the
/// person's environment gives them, where the person's configuration is, Scheme's options.
#[derive(Clone)]
pub struct Engine {
    /// The data directory.
    pub store: Store,
    /// The primitives an agent calls.
    pub registry: Arc<Registry>,
    /// The host settings every session starts from (each gets an interrupt of its own).
    pub host: HostSettings,
    /// The services every session shares (the strategies' kept engines); each session gets the
    /// judge model of its settings.
    pub services: Services,
    /// The person's configuration file.
    pub user_config: Option<PathBuf>,
    /// Scheme's options (the person's prompts file, time limits).
    pub scripts: ScriptOptions,
    /// What the command that runs this engine chose over the configuration (`nodwyn run
    /// --model --max-model-calls`, in-process); nothing for a daemon.
    pub overrides: Overrides,
}

/// What a command line chose over the configuration for every session of its engine.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// The model profile (none: the configuration's default).
    pub model: Option<String>,
    /// The most model calls a turn makes.
    pub max_model_calls: Option<u32>,
    /// The most tokens a turn uses.
    pub max_tokens: Option<u64>,
}

impl Engine {
    /// The settings of the person's configuration and, when given, `repository`'s.
    pub fn settings_for(&self, repository: Option<&Path>) -> anyhow::Result<Settings> {
        Settings::resolve(self.user_config.as_deref(), repository)
    }

    /// The host settings of one session (the engine's, with an interrupt no other session
    /// shares) and its services (the judge model the person configured, see [`judge_model`]).
    pub fn host_for_session(
        &self,
        settings: &Settings,
        handle: &tokio::runtime::Handle,
    ) -> anyhow::Result<(HostSettings, Services)> {
        let mut host = self.host.clone();
        host.interrupt = Interrupt::new();
        let judge = judge_model(&host, settings, &self.store, &self.scripts, handle)?;
        Ok((host, self.services.with_judge(judge)))
    }
}

/// The judge model the person configured (`[judge] model`), if any: it answers ordinary
/// questions before the person is asked, its prompt composed by `(judge-prompt effect)` from
/// nodwyn's prompts and the person's own (read with `host`'s settings).
pub fn judge_model(
    host: &HostSettings,
    settings: &Settings,
    store: &Store,
    scripts: &ScriptOptions,
    handle: &tokio::runtime::Handle,
) -> anyhow::Result<Option<SharedJudge>> {
    let Some(choice) = &settings.judge else {
        return Ok(None);
    };
    let profile = settings
        .model(Some(&choice.profile))
        .map_err(|e| anyhow::anyhow!("[judge] model = \"{}\": {e}", choice.profile))?;
    let model = Arc::new(Client::new(model_profile(&profile)?.0)?);
    let scripting_store = store.clone();
    let scripting_settings = host.clone();
    let scripts = scripts.clone();
    let compose = Box::new(move |effect: &nodwyn_core::guard::Effect, why: &str| {
        // The prompt is composed from the person's files alone, and runs no primitive.
        let scripting = nodwyn_core::scripts::Scripting {
            store: &scripting_store,
            registry: &Registry::builtin(),
            settings: &scripting_settings,
            judges: &(),
            options: &scripts,
            spent: None,
            only: None,
        };
        nodwyn_core::scripts::judge_prompt(&scripting, effect, why).map_err(|e| e.to_string())
    });
    Ok(Some(SharedJudge(Arc::new(
        nodwyn_agent::judge::ModelJudge::new(model, compose, handle.clone(), choice.timeout),
    ))))
}

/// The model client's profile, with the key read from the variable the profile names; and the
/// model's context size.
pub fn model_profile(profile: &ModelProfile) -> anyhow::Result<(Profile, Option<u64>)> {
    let api_key = match &profile.api_key_env {
        Some(variable) => match std::env::var(variable) {
            Ok(key) if !key.trim().is_empty() => Some(ApiKey::new(key.trim().to_owned())),
            _ => bail!(
                "{variable} is not set: the model profile `{}` takes its key from it (api_key_env)",
                profile.profile
            ),
        },
        None => None,
    };
    Ok((
        Profile {
            provider: match profile.provider {
                ModelProvider::OpenAi => Provider::OpenAi,
                ModelProvider::Anthropic => Provider::Anthropic,
            },
            base_url: profile.base_url.clone(),
            name: profile.name.clone(),
            api_key,
            stream_tools: profile.stream_tools,
            max_output_tokens: profile.max_output_tokens,
        },
        profile.context_tokens,
    ))
}

/// The person's model profiles by name, for a sub-agent that names one (`'model "PROFILE"`).
pub fn profiles_of(settings: &Settings) -> Arc<nodwyn_agent::Profiles> {
    let settings = settings.clone();
    Arc::new(move |name: &str| {
        let profile = settings.model(Some(name)).map_err(|e| e.to_string())?;
        let (profile, _) = model_profile(&profile).map_err(|e| e.to_string())?;
        let client = Client::new(profile).map_err(|e| e.to_string())?;
        Ok(Arc::new(client) as Arc<dyn nodwyn_model::Model>)
    })
}

/// The agent's options: `mode` and where a worktree goes, the configured limits, the model's
/// context, Scheme's options.
pub fn agent_options(
    settings: &Settings,
    mode: WorktreeMode,
    new_worktree: NewWorktree,
    context_tokens: Option<u64>,
    scripts: ScriptOptions,
) -> Options {
    Options {
        max_model_calls: settings.max_turns,
        max_tokens: settings.max_tokens,
        worktree: protocol_mode(mode),
        new_worktree,
        context_tokens,
        scripts,
        ..Options::default()
    }
}

/// The configuration's worktree mode as the protocol names it.
pub fn protocol_mode(mode: WorktreeMode) -> nodwyn_protocol::WorktreeMode {
    match mode {
        WorktreeMode::Auto => nodwyn_protocol::WorktreeMode::Auto,
        WorktreeMode::Always => nodwyn_protocol::WorktreeMode::Always,
        WorktreeMode::Off => nodwyn_protocol::WorktreeMode::Off,
    }
}

/// The protocol's worktree mode as the configuration names it.
pub fn config_mode(mode: nodwyn_protocol::WorktreeMode) -> WorktreeMode {
    match mode {
        nodwyn_protocol::WorktreeMode::Auto => WorktreeMode::Auto,
        nodwyn_protocol::WorktreeMode::Always => WorktreeMode::Always,
        nodwyn_protocol::WorktreeMode::Off => WorktreeMode::Off,
    }
}
