//! The clients against the stand-in server: each provider's real wire format over real HTTP on
//! 127.0.0.1, with chunks split where they split in practice, retries, broken streams and keys.

use std::time::Duration;

use nodwyn_model::{
    ApiKey, Client, Error, Limits, MAX_ANSWER_BYTES, MAX_TOOL_CALLS, Message, Model, Profile,
    Provider, Request, Retry, StopReason, StreamEvent, Tool, ToolCall, Usage,
};
use nodwyn_standin::{Reply, StandIn, anthropic, openai};
use serde_json::json;

const KEY: &str = "sk-standin-0123456789abcdef";

fn profile(provider: Provider, server: &StandIn) -> Profile {
    Profile {
        provider,
        base_url: match provider {
            Provider::OpenAi => format!("{}/v1", server.url()),
            Provider::Anthropic => server.url().to_owned(),
        },
        name: "standin-model".to_owned(),
        api_key: Some(ApiKey::new(KEY.to_owned())),
        stream_tools: true,
        max_output_tokens: 1024,
    }
}

fn client(profile: Profile) -> Client {
    Client::new(profile).unwrap().with_retry(Retry {
        tries: 3,
        first_wait: Duration::from_millis(10),
        longest_wait: Duration::from_secs(2),
    })
}

fn request() -> Request {
    Request {
        system: "You are a test.".to_owned(),
        messages: vec![
            Message::User {
                text: "read the file".to_owned(),
            },
            Message::Assistant {
                text: "reading".to_owned(),
                tool_calls: vec![
                    ToolCall {
                        id: "a".to_owned(),
                        name: "fs-read".to_owned(),
                        arguments: json!({"path": "x"}),
                    },
                    ToolCall {
                        id: "b".to_owned(),
                        name: "fs-read".to_owned(),
                        arguments: json!({"path": "y"}),
                    },
                ],
            },
            Message::ToolResult {
                call_id: "a".to_owned(),
                content: "one".to_owned(),
                is_error: false,
            },
            Message::ToolResult {
                call_id: "b".to_owned(),
                content: "refused".to_owned(),
                is_error: true,
            },
        ],
        tools: vec![Tool {
            name: "fs-read".to_owned(),
            description: "Reads a file.".to_owned(),
            schema: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        }],
    }
}

async fn complete(client: &Client) -> (Result<nodwyn_model::Answer, Error>, Vec<StreamEvent>) {
    let mut seen = Vec::new();
    let request = request();
    let mut sink = |event: StreamEvent| seen.push(event);
    let answer = client.complete(&request, &mut sink).await;
    (answer, seen)
}

fn calls() -> Vec<(&'static str, serde_json::Value)> {
    vec![
        (
            "fs-write",
            json!({"path": "src/lib.rs", "content": "fn main() {\n    println!(\"hi\");\n}\n"}),
        ),
        ("shell-exec", json!({"command": "cargo test"})),
    ]
}

#[tokio::test]
async fn openai_text_and_two_tool_calls_split_across_chunks() {
    let server = StandIn::start(vec![openai::answer("Let me fix it.", &calls(), (321, 45))]);
    let (answer, seen) = complete(&client(profile(Provider::OpenAi, &server))).await;
    let answer = answer.unwrap();
    assert_eq!(answer.text, "Let me fix it.");
    assert_eq!(answer.tool_calls.len(), 2);
    assert_eq!(answer.tool_calls[0].name, "fs-write");
    assert_eq!(answer.tool_calls[0].arguments, calls()[0].1);
    assert_eq!(answer.tool_calls[1].arguments, calls()[1].1);
    assert_eq!(
        answer.usage,
        Usage {
            input_tokens: 321,
            output_tokens: 45
        }
    );
    assert_eq!(answer.stop, StopReason::ToolUse);
    assert!(answer.first_output.is_some());
    // What arrived, whatever the server reported: the text, and each call's id, name and
    // arguments as the wire carried them.
    let arguments: usize = calls().iter().map(|(_, a)| a.to_string().len()).sum();
    assert_eq!(
        answer.received as usize,
        "Let me fix it.".len() + "call_0fs-write".len() + "call_1shell-exec".len() + arguments
    );
    let text: String = seen
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta(t) => Some(t.as_str()),
            StreamEvent::ToolCall { .. } | StreamEvent::ReasoningDelta(_) => None,
        })
        .collect();
    assert_eq!(text, "Let me fix it.");
    assert!(
        matches!(seen.last(), Some(StreamEvent::ToolCall { id, name }) if id == "call_1" && name == "shell-exec")
    );

    // The request as the wire carries it.
    let sent = &server.received()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let body = &sent.body;
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][2]["tool_calls"][1]["id"], "b");
    assert_eq!(
        body["messages"][2]["tool_calls"][0]["function"]["arguments"],
        "{\"path\":\"x\"}"
    );
    assert_eq!(body["messages"][4]["role"], "tool");
    assert_eq!(body["messages"][4]["tool_call_id"], "b");
    assert_eq!(body["tools"][0]["function"]["name"], "fs-read");
}

#[tokio::test]
async fn anthropic_text_and_two_tool_calls_with_pings() {
    let server = StandIn::start(vec![anthropic::answer(
        "Let me fix it.",
        &calls(),
        (321, 45),
    )]);
    let (answer, _) = complete(&client(profile(Provider::Anthropic, &server))).await;
    let answer = answer.unwrap();
    assert_eq!(answer.text, "Let me fix it.");
    assert_eq!(
        answer
            .tool_calls
            .iter()
            .map(|c| (c.name.as_str(), c.arguments.clone()))
            .collect::<Vec<_>>(),
        calls()
    );
    assert_eq!(answer.usage.input_tokens, 321);
    assert_eq!(answer.usage.output_tokens, 45);
    assert_eq!(answer.stop, StopReason::ToolUse);

    let sent = &server.received()[0];
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some(KEY));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    let body = &sent.body;
    assert_eq!(body["system"], "You are a test.");
    assert_eq!(body["max_tokens"], 1024);
    // Both tool results travel in one user message.
    assert_eq!(body["messages"].as_array().unwrap().len(), 3);
    assert_eq!(body["messages"][2]["content"][1]["tool_use_id"], "b");
    assert_eq!(body["messages"][2]["content"][1]["is_error"], true);
    assert_eq!(body["tools"][0]["input_schema"]["required"][0], "path");
}

#[tokio::test]
async fn a_429_waits_as_the_server_says_then_succeeds() {
    let server = StandIn::start(vec![
        Reply::status(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "1"),
        openai::text("done"),
    ]);
    let started = std::time::Instant::now();
    let (answer, _) = complete(&client(profile(Provider::OpenAi, &server))).await;
    let answer = answer.unwrap();
    assert_eq!(answer.text, "done");
    assert_eq!(answer.tries, 2);
    assert!(started.elapsed() >= Duration::from_millis(900));
    assert_eq!(server.received().len(), 2);
}

#[tokio::test]
async fn a_500_twice_then_success_and_a_third_failure_is_one_sentence() {
    let server = StandIn::start(vec![
        Reply::status(500, "oops"),
        Reply::status(503, "busy"),
        anthropic::text("done"),
    ]);
    let (answer, _) = complete(&client(profile(Provider::Anthropic, &server))).await;
    assert_eq!(answer.unwrap().tries, 3);

    let server = StandIn::start(vec![
        Reply::status(500, "oops"),
        Reply::status(500, "oops"),
        Reply::status(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ),
    ]);
    let (answer, _) = complete(&client(profile(Provider::Anthropic, &server))).await;
    let sentence = answer.unwrap_err().to_string();
    assert!(
        sentence.starts_with(&format!(
            "the model server at {} answered 529",
            server.url()
        )),
        "{sentence}"
    );
    assert!(
        sentence.contains("after 3 tries") && sentence.contains("Overloaded"),
        "{sentence}"
    );
}

#[tokio::test]
async fn an_overloaded_error_event_before_any_output_is_tried_again() {
    let server = StandIn::start(vec![
        anthropic::error("overloaded_error", "Overloaded"),
        anthropic::text("done"),
    ]);
    let (answer, _) = complete(&client(profile(Provider::Anthropic, &server))).await;
    assert_eq!(answer.unwrap().text, "done");

    let server = StandIn::start(vec![anthropic::error("invalid_request_error", "bad tools")]);
    let (answer, _) = complete(&client(profile(Provider::Anthropic, &server))).await;
    let sentence = answer.unwrap_err().to_string();
    assert!(sentence.contains("bad tools"), "{sentence}");
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn a_stream_cut_after_output_is_an_error_and_before_it_is_tried_again() {
    let long = "This answer is long enough to be cut in the middle.";
    // Cut after some text: output reached the caller, so no second try.
    let server = StandIn::start(vec![openai::text(long).cut_after(4), openai::text(long)]);
    let (answer, seen) = complete(&client(profile(Provider::OpenAi, &server))).await;
    let sentence = answer.unwrap_err().to_string();
    assert!(
        sentence.contains("broke off its answer") && sentence.contains("ended before"),
        "{sentence}"
    );
    assert!(!seen.is_empty());
    assert_eq!(server.received().len(), 1);

    // Cut before anything: tried again.
    let server = StandIn::start(vec![openai::text(long).cut_after(1), openai::text(long)]);
    let (answer, _) = complete(&client(profile(Provider::OpenAi, &server))).await;
    assert_eq!(answer.unwrap().text, long);
    assert_eq!(server.received().len(), 2);
}

#[tokio::test]
async fn a_server_that_drops_streamed_tool_calls_is_asked_without_streaming() {
    let server = StandIn::start(vec![openai::whole("calling", &calls(), (50, 5))]);
    let mut profile = profile(Provider::OpenAi, &server);
    profile.stream_tools = false;
    let (answer, seen) = complete(&client(profile)).await;
    let answer = answer.unwrap();
    assert_eq!(answer.text, "calling");
    assert_eq!(answer.tool_calls.len(), 2);
    assert_eq!(answer.usage.total(), 55);
    assert_eq!(seen.len(), 3);
    assert_eq!(server.received()[0].body["stream"], false);
}

#[tokio::test]
async fn the_key_never_appears_in_an_error() {
    let server = StandIn::start(vec![Reply::status(
        401,
        &format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}"}}}}"#),
    )]);
    let (answer, _) = complete(&client(profile(Provider::OpenAi, &server))).await;
    let error = answer.unwrap_err();
    let sentence = error.to_string();
    assert!(!sentence.contains(KEY), "{sentence}");
    assert!(!format!("{error:?}").contains(KEY));
    assert!(
        sentence.contains("401") && sentence.contains("[api key]"),
        "{sentence}"
    );
    assert!(!format!("{:?}", profile(Provider::OpenAi, &server)).contains(KEY));
}

#[tokio::test]
async fn nobody_listening_is_one_sentence_naming_the_server() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let profile = Profile {
        provider: Provider::OpenAi,
        base_url: format!("{url}/v1"),
        name: "m".to_owned(),
        api_key: None,
        stream_tools: true,
        max_output_tokens: 10,
    };
    let (answer, _) = complete(&client(profile)).await;
    let sentence = answer.unwrap_err().to_string();
    assert!(
        sentence.starts_with(&format!("could not reach the model server at {url}")),
        "{sentence}"
    );
    assert!(sentence.contains("after 3 tries"), "{sentence}");
}

/// A streamed answer in `provider`'s format.
fn answer(
    provider: Provider,
    text: &str,
    calls: &[(&str, serde_json::Value)],
) -> nodwyn_standin::Reply {
    match provider {
        Provider::OpenAi => openai::answer(text, calls, (10, 10)),
        Provider::Anthropic => anthropic::answer(text, calls, (10, 10)),
    }
}

#[tokio::test]
async fn a_tool_call_past_sixteen_mib_is_refused_by_default() {
    let big = json!({"content": "x".repeat(MAX_ANSWER_BYTES)});
    let server = StandIn::start(vec![openai::call_in_pieces("fs-write", &big, 64 * 1024)]);
    let (answer, seen) = complete(&client(profile(Provider::OpenAi, &server))).await;
    let error = answer.map(|_| ()).unwrap_err();
    assert_eq!(error.code(), "model_answer_too_large");
    assert!(
        error
            .to_string()
            .ends_with("its text and tool calls passed 16 MiB"),
        "{error}"
    );
    assert!(seen.is_empty());
}

#[tokio::test]
async fn an_answer_larger_than_its_limit_is_stopped_as_it_arrives() {
    let limits = Limits {
        answer_bytes: 64 * 1024,
        ..Limits::default()
    };
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        // Arguments past the limit, and text past it.
        let big = json!({"path": "a.txt", "content": "x".repeat(80 * 1024)});
        let server = StandIn::start(vec![
            answer(provider, "", &[("fs-write", big)]),
            answer(provider, &"y".repeat(80 * 1024), &[]),
        ]);
        let limited = client(profile(provider, &server)).with_limits(limits);
        for _ in 0..2 {
            let (answer, seen) = complete(&limited).await;
            let error = match answer {
                Ok(answer) => panic!(
                    "{provider:?}: an answer of {} bytes of text and {} tool call(s) was accepted",
                    answer.text.len(),
                    answer.tool_calls.len()
                ),
                Err(error) => error,
            };
            assert_eq!(
                error.code(),
                "model_answer_too_large",
                "{provider:?}: {error}"
            );
            assert!(
                error
                    .to_string()
                    .ends_with("its text and tool calls passed 65536 bytes"),
                "{error}"
            );
            assert!(
                !seen
                    .iter()
                    .any(|e| matches!(e, StreamEvent::ToolCall { .. })),
                "{provider:?}"
            );
        }
        // Not tried again: the same answer would come back.
        assert_eq!(server.received().len(), 2);

        // Unstreamed, the body counts.
        if provider == Provider::OpenAi {
            let big = json!({"content": "x".repeat(80 * 1024)});
            let server = StandIn::start(vec![openai::whole("", &[("fs-write", big)], (1, 1))]);
            let mut unstreamed = profile(provider, &server);
            unstreamed.stream_tools = false;
            let (answer, _) = complete(&client(unstreamed).with_limits(limits)).await;
            assert_eq!(
                answer.map(|_| ()).unwrap_err().code(),
                "model_answer_too_large"
            );
        }

        // Just under the limit, it is whole.
        let fits = json!({"content": "x".repeat(60 * 1024)});
        let server = StandIn::start(vec![answer(provider, "ok", &[("fs-write", fits.clone())])]);
        let (answer, _) = complete(&client(profile(provider, &server)).with_limits(limits)).await;
        assert_eq!(
            answer.unwrap().tool_calls[0].arguments,
            fits,
            "{provider:?}"
        );
    }
}

/// Waits (ten seconds at most) until the stand-in has ended `replies` replies.
async fn until_finished(server: &StandIn, replies: usize) {
    let started = std::time::Instant::now();
    while server.finished() < replies {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the connection was kept open"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_stream_gone_quiet_is_stopped_and_its_connection_dropped() {
    let limits = Limits {
        idle: Duration::from_millis(500),
        ..Limits::default()
    };
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        // The answer's first text, then only comments, a tenth of a second apart.
        let begun = match provider {
            Provider::OpenAi => 3,
            Provider::Anthropic => 4,
        };
        let server = StandIn::start(vec![
            answer(provider, "thinking very hard about this", &[])
                .cut_after(begun)
                .hanging(),
        ]);
        let quiet = client(profile(provider, &server)).with_limits(limits);
        let (answer, seen) = tokio::time::timeout(Duration::from_secs(20), complete(&quiet))
            .await
            .expect("the answer never ended");
        let error = answer.map(|_| ()).unwrap_err();
        assert_eq!(
            error.code(),
            "model_answer_stalled",
            "{provider:?}: {error}"
        );
        assert!(
            error
                .to_string()
                .ends_with("nothing of it arrived for 500ms"),
            "{error}"
        );
        assert!(!seen.is_empty(), "{provider:?}: the answer had begun");
        until_finished(&server, 1).await;
        assert_eq!(server.received().len(), 1, "not tried again once begun");
    }

    // Quiet before anything of the answer came, it is tried again.
    let server = StandIn::start(vec![
        openai::text("slow").cut_after(1).hanging(),
        openai::text("done"),
    ]);
    let (answer, _) =
        complete(&client(profile(Provider::OpenAi, &server)).with_limits(limits)).await;
    assert_eq!(answer.unwrap().text, "done");
}

#[tokio::test]
async fn an_answer_past_its_deadline_is_stopped_however_steadily_it_comes() {
    let limits = Limits {
        deadline: Duration::from_secs(1),
        idle: Duration::from_secs(10),
        ..Limits::default()
    };
    // About forty events a tenth of a second apart: never quiet, never done within a second.
    let long = "a steady answer that keeps coming and coming and coming, ".repeat(4);
    let server = StandIn::start(vec![openai::text(&long).paced(Duration::from_millis(100))]);
    let steady = client(profile(Provider::OpenAi, &server)).with_limits(limits);
    let (answer, seen) = tokio::time::timeout(Duration::from_secs(20), complete(&steady))
        .await
        .expect("the answer never ended");
    let error = match answer {
        Ok(answer) => panic!(
            "an answer of {} bytes in {} events was accepted",
            answer.text.len(),
            seen.len()
        ),
        Err(error) => error,
    };
    assert_eq!(error.code(), "model_answer_timed_out", "{error}");
    assert!(
        error.to_string().ends_with("it had not ended after 1s"),
        "{error}"
    );
    until_finished(&server, 1).await;

    // A server that never answers at all is stopped by the same deadline.
    let server = StandIn::start(vec![Reply::events(Vec::new()).hanging()]);
    let silent = client(profile(Provider::Anthropic, &server)).with_limits(limits);
    let (answer, _) = tokio::time::timeout(Duration::from_secs(20), complete(&silent))
        .await
        .expect("the answer never ended");
    assert_eq!(
        answer.map(|_| ()).unwrap_err().code(),
        "model_answer_timed_out"
    );
}

#[tokio::test]
async fn an_answer_with_more_tool_calls_than_its_limit_is_stopped() {
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        let calls = |n: usize| vec![("fs-list", json!({})); n];
        let server = StandIn::start(vec![
            answer(provider, "", &calls(MAX_TOOL_CALLS + 1)),
            answer(provider, "", &calls(MAX_TOOL_CALLS)),
        ]);
        let (answer, seen) = complete(&client(profile(provider, &server))).await;
        let error = match answer {
            Ok(answer) => panic!(
                "{provider:?}: an answer of {} tool calls was accepted",
                answer.tool_calls.len()
            ),
            Err(error) => error,
        };
        assert_eq!(error.code(), "model_too_many_tool_calls", "{error}");
        assert!(
            error
                .to_string()
                .ends_with("it made more than 128 tool calls in one answer"),
            "{error}"
        );
        // Each call is counted as it begins, before the answer hands any on.
        assert!(
            seen.len() <= MAX_TOOL_CALLS,
            "{provider:?}: {} calls handed on",
            seen.len()
        );
        let (answer, _) = complete(&client(profile(provider, &server))).await;
        assert_eq!(
            answer.unwrap().tool_calls.len(),
            MAX_TOOL_CALLS,
            "{provider:?}"
        );
    }
}

#[tokio::test]
async fn an_unstreamed_answer_of_the_wrong_shape_is_read_without_a_panic() {
    let odd = [
        r#"{"choices": [5]}"#,
        r#"{"choices": [{"message": "text"}]}"#,
        r#"{"choices": [{"message": {"tool_calls": [5, {"function": 1}, {"function": {"name": "x"}}]}}]}"#,
    ];
    for body in odd {
        let server = StandIn::start(vec![Reply::status(200, body)]);
        let mut unstreamed = profile(Provider::OpenAi, &server);
        unstreamed.stream_tools = false;
        let (answer, _) = complete(&client(unstreamed)).await;
        assert!(answer.is_ok(), "{body}: {answer:?}");
    }
}

#[tokio::test]
async fn a_server_that_does_not_know_the_path_is_named_with_the_url_asked() {
    let server = StandIn::start(vec![Reply::status(404, "Not Found")]);
    let (answer, _) = complete(&client(profile(Provider::OpenAi, &server))).await;
    let sentence = answer.unwrap_err().to_string();
    assert!(
        sentence.contains(&format!("answered 404 Not Found to POST {}", server.url()))
            && sentence.contains("/chat/completions"),
        "{sentence}"
    );
}

#[tokio::test]
async fn reasoning_is_shown_apart_from_the_answer_and_a_refusal_is_its_own_stop() {
    let thought = "The total is in cents, so the test divides by 100.";
    for (provider, reasoned, refused) in [
        (
            Provider::OpenAi,
            openai::reasoning_then(thought, "Fixed."),
            openai::refusal("I can't help with that."),
        ),
        (
            Provider::Anthropic,
            anthropic::thinking_then(thought, "Fixed.", "end_turn"),
            anthropic::thinking_then("", "I can't help with that.", "refusal"),
        ),
    ] {
        let server = StandIn::start(vec![reasoned, refused]);
        let client = client(profile(provider, &server));
        let (answer, seen) = complete(&client).await;
        let answer = answer.unwrap();
        assert_eq!(answer.text, "Fixed.", "{provider:?}");
        assert_eq!(answer.stop, StopReason::EndTurn, "{provider:?}");
        let reasoning: String = seen
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ReasoningDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(reasoning, thought, "{provider:?}");
        // Counted as received, though it is not the answer.
        assert!(answer.received as usize >= thought.len() + "Fixed.".len());

        let (answer, _) = complete(&client).await;
        let answer = answer.unwrap();
        assert_eq!(answer.stop, StopReason::Refusal, "{provider:?}");
        assert_eq!(answer.text, "I can't help with that.", "{provider:?}");
    }
}
