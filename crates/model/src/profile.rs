//! A model profile: which provider's wire protocol, where the server is, which model, and the
//! key (held so that it cannot be printed).

use std::fmt;

/// Which wire protocol a server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI-compatible Chat Completions.
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
}

/// An API key. Its `Debug` and `Display` show only that it is there.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Holds `key`.
    pub fn new(key: String) -> Self {
        Self(key)
    }

    /// The key itself, for the request header only.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced, for anything that may be shown.
    pub(crate) fn scrub(&self, text: &str) -> String {
        if self.0.len() < 4 {
            return text.to_owned();
        }
        text.replace(&self.0, "[api key]")
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(..)")
    }
}

/// Everything needed to call one model.
#[derive(Debug, Clone)]
pub struct Profile {
    /// The wire protocol.
    pub provider: Provider,
    /// Where the server is: `http://127.0.0.1:11434/v1` (OpenAI-compatible: the part before
    /// `/chat/completions`), `https://api.anthropic.com` (Anthropic: the part before
    /// `/v1/messages`).
    pub base_url: String,
    /// The model's name on that server.
    pub name: String,
    /// The key, when the server wants one.
    pub api_key: Option<ApiKey>,
    /// Whether requests that offer tools may stream (some servers drop streamed tool calls).
    pub stream_tools: bool,
    /// The most tokens one answer may have.
    pub max_output_tokens: u32,
}

impl Profile {
    /// The server, for sentences: scheme, host and port of the base address.
    pub fn server(&self) -> String {
        let url = self.base_url.trim_end_matches('/');
        match url.split_once("://") {
            Some((scheme, rest)) => {
                let host = rest.split('/').next().unwrap_or(rest);
                // Credentials written into the address are not shown.
                let host = host.rsplit('@').next().unwrap_or(host);
                format!("{scheme}://{host}")
            }
            None => url.to_owned(),
        }
    }

    /// The address requests go to.
    /// The URL requests go to, as a sentence may show it: without credentials written into the
    /// address, or a query.
    pub(crate) fn shown_endpoint(&self) -> String {
        let endpoint = self.endpoint();
        let endpoint = endpoint
            .split(['?', '#'])
            .next()
            .unwrap_or_default()
            .to_owned();
        match endpoint.split_once("://") {
            Some((scheme, rest)) => {
                let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
                let host = host.rsplit('@').next().unwrap_or(host);
                format!("{scheme}://{host}/{path}")
            }
            None => endpoint,
        }
    }

    pub(crate) fn endpoint(&self) -> String {
        let base = self.base_url.trim_end_matches('/');
        match self.provider {
            Provider::OpenAi => format!("{base}/chat/completions"),
            Provider::Anthropic => format!("{base}/v1/messages"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_never_shown() {
        let key = ApiKey::new("sk-live-abcdef123456".to_owned());
        assert_eq!(format!("{key:?}"), "ApiKey(..)");
        assert_eq!(
            key.scrub("bad key sk-live-abcdef123456 given"),
            "bad key [api key] given"
        );
    }

    #[test]
    fn the_server_is_its_scheme_host_and_port() {
        let profile = Profile {
            provider: Provider::OpenAi,
            base_url: "https://user:pw@openrouter.ai/api/v1/".to_owned(),
            name: "x".to_owned(),
            api_key: None,
            stream_tools: true,
            max_output_tokens: 1,
        };
        assert_eq!(profile.server(), "https://openrouter.ai");
        assert_eq!(
            profile.endpoint(),
            "https://user:pw@openrouter.ai/api/v1/chat/completions"
        );
    }
}
