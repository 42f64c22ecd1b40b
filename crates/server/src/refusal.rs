//! A request's failure as the wire carries it: JSON-RPC's number, the stable code programs act
//! on, the sentence, and the files it names.

use nodwyn_protocol::rpc::{ErrorData, INTERNAL_ERROR, INVALID_PARAMS, REFUSED};

/// Why a request did not do what it asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// JSON-RPC's error number.
    pub rpc: i64,
    /// The stable code.
    pub code: String,
    /// The sentence.
    pub message: String,
    /// The files it is about.
    pub files: Vec<String>,
}

impl Refusal {
    /// A refusal of nodwyn's own with `code`.
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            rpc: REFUSED,
            code: code.to_owned(),
            message: message.into(),
            files: Vec::new(),
        }
    }

    /// A parameter that is wrong.
    pub fn params(message: impl Into<String>) -> Self {
        Self {
            rpc: INVALID_PARAMS,
            ..Self::new("bad_params", message)
        }
    }

    /// The engine failed in a way it did not foresee.
    pub fn internal(message: impl Into<String>) -> Self {
        Self {
            rpc: INTERNAL_ERROR,
            ..Self::new("internal", message)
        }
    }

    /// The error's data member.
    pub fn data(&self) -> ErrorData {
        ErrorData {
            code: self.code.clone(),
            files: self.files.clone(),
        }
    }
}

impl From<nodwyn_core::Error> for Refusal {
    fn from(error: nodwyn_core::Error) -> Self {
        Self {
            files: error.files().to_vec(),
            ..Self::new(error.code(), error.to_string())
        }
    }
}

impl From<tokio::task::JoinError> for Refusal {
    fn from(error: tokio::task::JoinError) -> Self {
        Self::internal(format!("the work stopped: {error}"))
    }
}

/// A configuration or model problem, named by `code` (`bad_configuration`, `no_model`).
pub fn configuration(code: &str, error: &anyhow::Error) -> Refusal {
    Refusal::new(code, format!("{error:#}"))
}

/// Runs blocking `work` (git, the log, locks) on a blocking thread, so it holds no other client.
pub async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, Refusal> + Send + 'static,
) -> Result<T, Refusal> {
    tokio::task::spawn_blocking(work).await?
}
