//! The [`Model`] trait and [`Client`], which speaks a profile's wire protocol over HTTP: one
//! request per try, the stream read into events as it comes, retried only while nothing of the
//! answer has reached the caller; every try within one deadline, a stream that goes quiet
//! stopped, and what arrives held to the client's [`Limits`].

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::Value;
use tokio::time::timeout_at;

use crate::error::{Bound, Error};
use crate::limits::Limits;
use crate::openai::{DecodeError, ServerError};
use crate::profile::{Profile, Provider};
use crate::retry::{Retry, retry_after, retryable_status};
use crate::sse::{SseEvent, SseReader};
use crate::types::{Answer, Parts, Request, StreamEvent};
use crate::{anthropic, openai};

/// A boxed future a model call returns.
pub(crate) type Pending<'a> = Pin<Box<dyn Future<Output = Result<Answer, Error>> + Send + 'a>>;

/// Something that answers a [`Request`].
pub trait Model: Send + Sync {
    /// The model and its server, for records and sentences (never the key).
    fn describe(&self) -> String;

    /// Answers `request`, handing text and tool calls to `events` as they come.
    fn complete<'a>(
        &'a self,
        request: &'a Request,
        events: &'a mut (dyn FnMut(StreamEvent) + Send),
    ) -> Pending<'a>;
}

/// A model on a server, reached over HTTP.
#[derive(Debug, Clone)]
pub struct Client {
    profile: Profile,
    retry: Retry,
    limits: Limits,
    http: reqwest::Client,
}

/// How one try ended, when it did not succeed.
enum Failed {
    /// Worth another try, unless the answer had begun.
    Again {
        error: Error,
        retry_after: Option<Duration>,
    },
    /// Not worth another.
    Final(Error),
}

impl Client {
    /// A client for `profile`.
    pub fn new(profile: Profile) -> Result<Self, Error> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(15))
            // Between two pieces of an answer: a local model may think for a long while.
            .read_timeout(Duration::from_secs(600))
            .build()
            .map_err(|e| Error::Profile(format!("could not set up HTTP: {e}")))?;
        Ok(Self {
            profile,
            retry: Retry::default(),
            limits: Limits::default(),
            http,
        })
    }

    /// Tries failed calls again as `retry` says.
    pub fn with_retry(mut self, retry: Retry) -> Self {
        self.retry = retry;
        self
    }

    /// Holds answers to `limits` rather than the defaults.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The profile.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    async fn complete_with_retries(
        &self,
        request: &Request,
        events: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Answer, Error> {
        let started = Instant::now();
        // Every try and every wait between them fit in one deadline.
        let deadline = tokio::time::Instant::now() + self.limits.deadline;
        let tries = self.retry.tries.max(1);
        let mut attempt = 1;
        loop {
            let mut first_output = None;
            let mut sink = |event: StreamEvent| {
                first_output.get_or_insert_with(|| started.elapsed());
                events(event);
            };
            let outcome = self.try_once(request, deadline, &mut sink).await;
            match outcome {
                Ok((text, tool_calls, usage, stop, received)) => {
                    return Ok(Answer {
                        text,
                        tool_calls,
                        usage,
                        stop,
                        first_output,
                        tries: attempt,
                        received,
                    });
                }
                Err(Failed::Again { error, retry_after }) => {
                    if first_output.is_some() || attempt >= tries {
                        return Err(with_tries(error, attempt, first_output.is_some()));
                    }
                    let wait = self.retry.wait(attempt + 1, retry_after);
                    if tokio::time::Instant::now() + wait >= deadline {
                        return Err(with_tries(error, attempt, false));
                    }
                    tracing::info!(server = %self.profile.server(), attempt, ?wait, error = %error, "trying the model again");
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                Err(Failed::Final(error)) => return Err(with_tries(error, attempt, false)),
            }
        }
    }

    async fn try_once(
        &self,
        request: &Request,
        deadline: tokio::time::Instant,
        out: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Parts, Failed> {
        let late = || {
            Failed::Final(self.bounded(Bound::Deadline {
                limit: self.limits.deadline,
            }))
        };
        let profile = &self.profile;
        let stream = profile.stream_tools || request.tools.is_empty();
        let body = match profile.provider {
            Provider::OpenAi => {
                openai::body(request, &profile.name, profile.max_output_tokens, stream)
            }
            Provider::Anthropic => {
                anthropic::body(request, &profile.name, profile.max_output_tokens, stream)
            }
        };
        let mut builder = self
            .http
            .post(profile.endpoint())
            .header("content-type", "application/json")
            .body(body.to_string());
        builder = match (profile.provider, &profile.api_key) {
            (Provider::OpenAi, Some(key)) => {
                builder.header("authorization", format!("Bearer {}", key.expose()))
            }
            (Provider::Anthropic, Some(key)) => builder.header("x-api-key", key.expose()),
            (_, None) => builder,
        };
        if profile.provider == Provider::Anthropic {
            builder = builder.header("anthropic-version", anthropic::VERSION);
        }
        let response = timeout_at(deadline, builder.send())
            .await
            .map_err(|_| late())?
            .map_err(|e| Failed::Again {
                error: self.unreachable(&e),
                retry_after: None,
            })?;
        let status = response.status();
        if !status.is_success() {
            let wait = retry_after(
                response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok()),
            );
            // Only the start of an error's body is read: it is shown shortened anyway.
            let text = match timeout_at(deadline, read_body(response, ERROR_BODY_BYTES))
                .await
                .map_err(|_| late())?
            {
                Ok(Body::Whole(bytes) | Body::Cut(bytes)) => {
                    String::from_utf8_lossy(&bytes).into_owned()
                }
                Err(_) => String::new(),
            };
            let error = Error::Status {
                server: profile.server(),
                url: profile.shown_endpoint(),
                status: status.to_string(),
                message: self.shown(&error_message(&text)),
                tries: 1,
            };
            return Err(if retryable_status(status.as_u16()) {
                Failed::Again {
                    error,
                    retry_after: wait,
                }
            } else {
                Failed::Final(error)
            });
        }
        let limits = self.limits;
        if !stream {
            // The whole body counts against the answer's limit: its text and arguments are in it.
            let body = match timeout_at(deadline, read_body(response, limits.answer_bytes))
                .await
                .map_err(|_| late())?
            {
                Ok(Body::Whole(bytes)) => bytes,
                Ok(Body::Cut(_)) => {
                    return Err(Failed::Final(self.bounded(Bound::AnswerTooLarge {
                        limit: limits.answer_bytes,
                    })));
                }
                Err(e) => {
                    return Err(Failed::Again {
                        error: self.unreachable(&e),
                        retry_after: None,
                    });
                }
            };
            let value: Value = serde_json::from_slice(&body)
                .map_err(|e| Failed::Final(self.broken(format!("the answer is not JSON ({e})"))))?;
            let received = body.len() as u64;
            drop(body);
            let parts = match profile.provider {
                Provider::OpenAi => openai::whole(value, limits, out),
                Provider::Anthropic => anthropic::whole(value, limits, out),
            };
            return parts
                .map(|(text, calls, usage, stop, counted)| {
                    (text, calls, usage, stop, counted.max(received))
                })
                .map_err(|e| self.decode_failed(e));
        }
        let mut decoder = match profile.provider {
            Provider::OpenAi => Decoder::OpenAi(openai::Decoder::new(limits)),
            Provider::Anthropic => Decoder::Anthropic(anthropic::Decoder::new(limits)),
        };
        let mut reader = SseReader::with_limit(limits.event_bytes);
        let mut bytes = response.bytes_stream();
        // Silence is timed from the first event on: before it, a model may read a long prompt.
        let mut quiet_until = None;
        loop {
            let (wake, quiet) = match quiet_until {
                Some(until) if until < deadline => (until, true),
                _ => (deadline, false),
            };
            let Ok(next) = timeout_at(wake, bytes.next()).await else {
                // Returning drops the stream, and with it the connection.
                if !quiet {
                    return Err(late());
                }
                return Err(Failed::Again {
                    error: self.bounded(Bound::Idle { limit: limits.idle }),
                    retry_after: None,
                });
            };
            let Some(chunk) = next else { break };
            let chunk = chunk.map_err(|e| Failed::Again {
                error: self.broken(format!("the connection broke ({})", plain(&e))),
                retry_after: None,
            })?;
            let read = reader
                .feed(&chunk)
                .map_err(|bound| Failed::Final(self.bounded(bound)))?;
            for event in read {
                if carries_answer(&event) {
                    quiet_until = Some(tokio::time::Instant::now() + limits.idle);
                }
                decoder
                    .event(&event, out)
                    .map_err(|e| self.decode_failed(e))?;
            }
            if decoder.is_done() {
                break;
            }
        }
        if !decoder.is_done() {
            return Err(Failed::Again {
                error: self.broken("the stream ended before the answer did".to_owned()),
                retry_after: None,
            });
        }
        Ok(decoder.finish(out))
    }

    fn unreachable(&self, error: &reqwest::Error) -> Error {
        Error::Unreachable {
            server: self.profile.server(),
            why: self.shown(&plain(error)),
            tries: 1,
        }
    }

    fn broken(&self, why: String) -> Error {
        Error::Broken {
            server: self.profile.server(),
            why: self.shown(&why),
        }
    }

    fn bounded(&self, bound: Bound) -> Error {
        Error::Bound {
            server: self.profile.server(),
            bound,
        }
    }

    fn decode_failed(&self, error: DecodeError) -> Failed {
        match error {
            DecodeError::Server(error) => self.server_failed(error),
            DecodeError::Bound(bound) => Failed::Final(self.bounded(bound)),
        }
    }

    fn server_failed(&self, error: ServerError) -> Failed {
        let failure = self.broken(format!("it reported an error: {}", error.message));
        if error.retryable {
            Failed::Again {
                error: failure,
                retry_after: None,
            }
        } else {
            Failed::Final(failure)
        }
    }

    /// Text from the server made fit to show: the key taken out, one line, shortened.
    fn shown(&self, text: &str) -> String {
        let text = match &self.profile.api_key {
            Some(key) => key.scrub(text),
            None => text.to_owned(),
        };
        let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.chars().count() > 300 {
            format!("{}...", line.chars().take(300).collect::<String>())
        } else {
            line
        }
    }
}

impl Model for Client {
    fn describe(&self) -> String {
        format!("{} at {}", self.profile.name, self.profile.server())
    }

    fn complete<'a>(
        &'a self,
        request: &'a Request,
        events: &'a mut (dyn FnMut(StreamEvent) + Send),
    ) -> Pending<'a> {
        Box::pin(self.complete_with_retries(request, events))
    }
}

/// The decoder of the profile's protocol.
enum Decoder {
    OpenAi(openai::Decoder),
    Anthropic(anthropic::Decoder),
}

impl Decoder {
    fn event(
        &mut self,
        event: &SseEvent,
        out: &mut dyn FnMut(StreamEvent),
    ) -> Result<(), DecodeError> {
        match self {
            Decoder::OpenAi(d) => d.event(event, out),
            Decoder::Anthropic(d) => d.event(event, out),
        }
    }

    fn is_done(&self) -> bool {
        match self {
            Decoder::OpenAi(d) => d.is_done(),
            Decoder::Anthropic(d) => d.is_done(),
        }
    }

    fn finish(self, out: &mut dyn FnMut(StreamEvent)) -> Parts {
        match self {
            Decoder::OpenAi(d) => d.finish(out),
            Decoder::Anthropic(d) => d.finish(),
        }
    }
}

/// Whether `event` is more than a sign of life: a `ping` is silence, like a comment.
fn carries_answer(event: &SseEvent) -> bool {
    event.name != "ping"
}

/// The most of an error's body that is read.
const ERROR_BODY_BYTES: usize = 64 * 1024;

/// A body read up to a limit.
enum Body {
    /// All of it.
    Whole(Vec<u8>),
    /// Its first bytes: the rest would have passed the limit, and was not read.
    Cut(Vec<u8>),
}

/// Reads `response`'s body, at most `limit` bytes of it.
async fn read_body(mut response: reqwest::Response, limit: usize) -> Result<Body, reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > limit {
            body.extend_from_slice(&chunk[..limit - body.len()]);
            return Ok(Body::Cut(body));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Body::Whole(body))
}

/// The error a server's body carries, or the body itself.
fn error_message(text: &str) -> String {
    let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    value["error"]["message"]
        .as_str()
        .or_else(|| value["message"].as_str())
        .or_else(|| value["error"].as_str())
        .map(str::to_owned)
        .unwrap_or_else(|| text.to_owned())
}

/// An HTTP error in words, without the address reqwest adds (the server is in the sentence
/// already): what kind of failure, and its deepest cause.
fn plain(error: &reqwest::Error) -> String {
    let kind = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else if error.is_body() || error.is_decode() {
        "the answer could not be read"
    } else {
        "the request failed"
    };
    let mut deepest = None;
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        deepest = Some(cause.to_string());
        source = cause.source();
    }
    match deepest {
        Some(cause) => format!("{kind}: {cause}"),
        None => kind.to_owned(),
    }
}

/// The error with the number of tries it took; after output had begun, a broken stream.
fn with_tries(error: Error, tries: u32, began: bool) -> Error {
    match error {
        Error::Unreachable { server, why, .. } => Error::Unreachable { server, why, tries },
        Error::Status {
            server,
            url,
            status,
            message,
            ..
        } => Error::Status {
            server,
            url,
            status,
            message,
            tries,
        },
        Error::Broken { server, why } if !began && tries > 1 => Error::Broken {
            server,
            why: format!("{why} ({tries} tries)"),
        },
        other => other,
    }
}
