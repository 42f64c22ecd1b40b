//! The conversation as the model is sent it, from the items a session's log keeps: the person's
//! messages, the model's answers, tool results. A call the log has no result for (a run that
//! crashed mid-turn) gets one saying it was interrupted, so the conversation stays valid for
//! both providers; when the context fills, the oldest tool results are elided.

use nodwyn_model::{Message, ToolCall};
use nodwyn_protocol::Item;

/// What a tool call without a result is given.
pub(crate) const INTERRUPTED: &str = "[nodwyn: this call was interrupted before it gave a result]";

/// The messages of `items`, in order.
pub(crate) fn messages(items: &[Item]) -> Vec<Message> {
    let mut messages = Vec::new();
    let mut waiting: Vec<String> = Vec::new();
    for item in items {
        match item {
            Item::UserMessage { text } => {
                answer_waiting(&mut messages, &mut waiting);
                messages.push(Message::User { text: text.clone() });
            }
            Item::AssistantMessage { text, tool_calls } => {
                answer_waiting(&mut messages, &mut waiting);
                waiting = tool_calls.iter().map(|c| c.call_id.clone()).collect();
                messages.push(Message::Assistant {
                    text: text.clone(),
                    tool_calls: tool_calls
                        .iter()
                        .map(|c| ToolCall {
                            id: c.call_id.clone(),
                            name: c.tool.clone(),
                            arguments: c.arguments.clone(),
                        })
                        .collect(),
                });
            }
            Item::ToolResult {
                call_id,
                content,
                ok,
                ..
            } => {
                if let Some(place) = waiting.iter().position(|id| id == call_id) {
                    waiting.remove(place);
                    messages.push(Message::ToolResult {
                        call_id: call_id.clone(),
                        content: content.clone(),
                        is_error: !ok,
                    });
                }
            }
            // The engine's notes reached the model inside a tool result already.
            Item::Notice { .. } => {}
        }
    }
    answer_waiting(&mut messages, &mut waiting);
    messages
}

fn answer_waiting(messages: &mut Vec<Message>, waiting: &mut Vec<String>) {
    for call_id in waiting.drain(..) {
        messages.push(Message::ToolResult {
            call_id,
            content: INTERRUPTED.to_owned(),
            is_error: true,
        });
    }
}

/// `messages` with the oldest tool results elided until the whole is under three quarters of
/// `context_tokens` (about four characters a token); the last message is always kept.
pub(crate) fn fitted(
    messages: &[Message],
    system: &str,
    context_tokens: Option<u64>,
) -> Vec<Message> {
    let mut fitted = messages.to_vec();
    let Some(context) = context_tokens else {
        return fitted;
    };
    let budget = (context as usize).saturating_mul(3);
    let size = |messages: &[Message]| {
        system.len()
            + messages
                .iter()
                .map(|m| match m {
                    Message::User { text } => text.len(),
                    Message::Assistant { text, tool_calls } => {
                        text.len()
                            + tool_calls
                                .iter()
                                .map(|c| c.arguments.to_string().len())
                                .sum::<usize>()
                    }
                    Message::ToolResult { content, .. } => content.len(),
                })
                .sum::<usize>()
    };
    let last = fitted.len().saturating_sub(1);
    for index in 0..last {
        if size(&fitted) <= budget {
            break;
        }
        if let Message::ToolResult { content, .. } = &mut fitted[index]
            && content.len() > 200
        {
            *content = format!(
                "[nodwyn: this result ({} characters) was elided to keep the conversation within the model's context; call the tool again if you need it]",
                content.chars().count()
            );
        }
    }
    fitted
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodwyn_protocol::ToolCallItem;
    use serde_json::json;

    fn call(id: &str) -> ToolCallItem {
        ToolCallItem {
            call_id: id.to_owned(),
            tool: "fs-read".to_owned(),
            arguments: json!({"path": "a"}),
        }
    }

    #[test]
    fn a_call_without_a_result_is_answered_as_interrupted() {
        let items = vec![
            Item::UserMessage {
                text: "go".to_owned(),
            },
            Item::AssistantMessage {
                text: String::new(),
                tool_calls: vec![call("1"), call("2")],
            },
            Item::ToolResult {
                call_id: "1".to_owned(),
                tool: "fs-read".to_owned(),
                ok: true,
                content: "text".to_owned(),
                decision: None,
            },
            Item::UserMessage {
                text: "go on".to_owned(),
            },
        ];
        let messages = messages(&items);
        assert_eq!(messages.len(), 5);
        assert_eq!(
            messages[3],
            Message::ToolResult {
                call_id: "2".to_owned(),
                content: INTERRUPTED.to_owned(),
                is_error: true
            }
        );
        assert!(matches!(&messages[4], Message::User { text } if text == "go on"));
    }

    #[test]
    fn the_oldest_results_are_elided_when_the_context_fills() {
        let big = "x".repeat(4000);
        let messages: Vec<Message> = (0..4)
            .map(|i| Message::ToolResult {
                call_id: i.to_string(),
                content: big.clone(),
                is_error: false,
            })
            .collect();
        let fitted = fitted(&messages, "", Some(3000));
        let elided = |m: &Message| matches!(m, Message::ToolResult { content, .. } if content.starts_with("[nodwyn: this result"));
        assert!(elided(&fitted[0]) && elided(&fitted[1]));
        assert!(!elided(&fitted[3]));
        assert_eq!(fitted, fitted_again(&fitted));
        fn fitted_again(m: &[Message]) -> Vec<Message> {
            super::fitted(m, "", None)
        }
    }
}
