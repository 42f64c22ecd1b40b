//! Model profiles: `[model]` (the default profile) and `[models.NAME]` (others, chosen with
//! `--model NAME`). Where the server is (`base_url`) and which environment variable holds the key
//! (`api_key_env`) are the person's alone: a repository naming them could send its code, and the
//! person's key, anywhere. So are the provider, the model and how long its answers may be
//! (`provider`, `name`, `max_output_tokens`): on the person's account, they are what the person
//! pays for. A repository may only describe the server it is used with: the model's context
//! (`context_tokens`) and whether its tool calls stream (`stream_tools`).

use std::collections::BTreeMap;

use serde::Deserialize;

/// A profile as a configuration file writes it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ModelSection {
    provider: Option<ProviderName>,
    base_url: Option<String>,
    name: Option<String>,
    api_key_env: Option<String>,
    context_tokens: Option<u64>,
    stream_tools: Option<bool>,
    max_output_tokens: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum ProviderName {
    Openai,
    Anthropic,
}

/// Which wire protocol a profile's server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelProvider {
    /// OpenAI-compatible Chat Completions (OpenAI, OpenRouter, vLLM, LM Studio, llama.cpp,
    /// Ollama).
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
}

/// A model profile, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelProfile {
    /// The profile's name (`default` for `[model]`).
    pub profile: String,
    /// The wire protocol.
    pub provider: ModelProvider,
    /// Where the server is.
    pub base_url: String,
    /// The model's name on it.
    pub name: String,
    /// The environment variable holding the key, if the server wants one.
    pub api_key_env: Option<String>,
    /// The model's context, in tokens.
    pub context_tokens: Option<u64>,
    /// Whether requests offering tools may stream.
    pub stream_tools: bool,
    /// The most tokens one answer may have.
    pub max_output_tokens: u32,
}

/// The name `[model]` goes by.
pub(crate) const DEFAULT_PROFILE: &str = "default";

/// Every profile the person's file and the repository's define, the repository's fields over
/// the person's; `Err` names a repository file that sets what only the person may.
pub(crate) fn profiles(
    user: (Option<&ModelSection>, &BTreeMap<String, ModelSection>),
    repository: Option<(
        &std::path::Path,
        Option<&ModelSection>,
        &BTreeMap<String, ModelSection>,
    )>,
) -> anyhow::Result<BTreeMap<String, ModelSection>> {
    let mut merged: BTreeMap<String, ModelSection> = user.1.clone();
    if let Some(default) = user.0 {
        merged.insert(DEFAULT_PROFILE.to_owned(), default.clone());
    }
    if let Some((file, default, named)) = repository {
        let sections = default
            .map(|d| (DEFAULT_PROFILE.to_owned(), d))
            .into_iter()
            .chain(named.iter().map(|(k, v)| (k.clone(), v)));
        for (profile, section) in sections {
            if section.base_url.is_some() || section.api_key_env.is_some() {
                anyhow::bail!(
                    "{} sets the model server or its key (base_url, api_key_env), which only your own configuration may set: a repository could otherwise send its code and your key anywhere",
                    file.display()
                );
            }
            if section.provider.is_some()
                || section.name.is_some()
                || section.max_output_tokens.is_some()
            {
                anyhow::bail!(
                    "{} chooses the model (provider, name, max_output_tokens), which only your own configuration may: on your account it is what you pay for; a repository may set context_tokens and stream_tools",
                    file.display()
                );
            }
            let into = merged.entry(profile).or_default();
            into.context_tokens = section.context_tokens.or(into.context_tokens);
            into.stream_tools = section.stream_tools.or(into.stream_tools);
        }
    }
    Ok(merged)
}

impl ModelSection {
    /// The profile, resolved, or what it lacks.
    pub(crate) fn resolve(&self, profile: &str) -> anyhow::Result<ModelProfile> {
        let section = if profile == DEFAULT_PROFILE {
            "[model]".to_owned()
        } else {
            format!("[models.{profile}]")
        };
        let Some(base_url) = self.base_url.clone() else {
            anyhow::bail!(
                "{section} in your configuration has no base_url (where the model server is, such as http://127.0.0.1:11434/v1)"
            );
        };
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            anyhow::bail!("{section} base_url `{base_url}` is not an http:// or https:// address");
        }
        let Some(name) = self.name.clone() else {
            anyhow::bail!(
                "{section} in your configuration has no name (the model's name on the server)"
            );
        };
        let provider = match self.provider.unwrap_or(ProviderName::Openai) {
            ProviderName::Openai => ModelProvider::OpenAi,
            ProviderName::Anthropic => ModelProvider::Anthropic,
        };
        Ok(ModelProfile {
            profile: profile.to_owned(),
            provider,
            base_url,
            name,
            api_key_env: self.api_key_env.clone(),
            context_tokens: self.context_tokens,
            stream_tools: self.stream_tools.unwrap_or(true),
            max_output_tokens: self.max_output_tokens.unwrap_or(8192),
        })
    }
}
