//! The turn's plan: the steps a strategy declared (`define-plan`), told to the front-end as the
//! turn begins, all pending, and again each time the session's agent marks them with its `plan`
//! tool. The tool changes nothing but the plan: it is not a primitive, so the guard has nothing
//! to judge, and only the session's own agent is offered it (a sub-agent works on one step).

use nodwyn_model::{Tool, ToolCall};
use nodwyn_protocol::{Notification, PlanStatus, PlanStep};
use serde_json::{Value, json};

use super::{Agent, ToolOutcome, failure};

/// The name of the tool that marks the plan's steps.
pub(crate) const PLAN_TOOL: &str = "plan";

/// The `plan` tool, its description naming `steps` in order.
pub(crate) fn plan_tool(steps: &[PlanStep]) -> Tool {
    let listed: Vec<String> = steps
        .iter()
        .enumerate()
        .map(|(at, step)| format!("{}. {}", at + 1, step.step))
        .collect();
    Tool {
        name: PLAN_TOOL.to_owned(),
        description: format!(
            "Marks where you are in this turn's plan, which the person sees: give the status of each step by its number. The plan: {}",
            listed.join(" ")
        ),
        schema: json!({
            "type": "object",
            "properties": {
                "steps": {
                    "type": "array",
                    "description": "the steps whose status changes",
                    "items": {
                        "type": "object",
                        "properties": {
                            "step": {"type": "integer", "minimum": 1, "maximum": steps.len(), "description": "the step's number"},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
                        },
                        "required": ["step", "status"],
                        "additionalProperties": false,
                    },
                },
            },
            "required": ["steps"],
            "additionalProperties": false,
        }),
    }
}

/// `steps` as a new turn begins: each pending.
pub(crate) fn pending(steps: Vec<String>) -> Vec<PlanStep> {
    steps
        .into_iter()
        .map(|step| PlanStep {
            step,
            status: PlanStatus::Pending,
        })
        .collect()
}

/// `plan` with the changes `arguments` asks for, or why they cannot be made (nothing changes
/// then).
pub(crate) fn marked(plan: &[PlanStep], arguments: &Value) -> Result<Vec<PlanStep>, String> {
    let Some(changes) = arguments["steps"].as_array() else {
        return Err("`steps` must be a list of {step, status}".to_owned());
    };
    let mut marked = plan.to_vec();
    for change in changes {
        let number = change["step"].as_u64().unwrap_or(0);
        let Some(step) = usize::try_from(number)
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|at| marked.get_mut(at))
        else {
            return Err(format!(
                "no step {} in the plan, which has steps 1 to {}",
                change["step"],
                plan.len()
            ));
        };
        step.status = match change["status"].as_str() {
            Some("pending") => PlanStatus::Pending,
            Some("in_progress") => PlanStatus::InProgress,
            Some("completed") => PlanStatus::Completed,
            _ => {
                return Err(format!(
                    "step {number}'s status must be pending, in_progress or completed, not {}",
                    change["status"]
                ));
            }
        };
    }
    Ok(marked)
}

impl Agent {
    /// Marks the plan as `call` asks, and tells the front-end the whole plan.
    pub(super) fn mark_plan(&mut self, call: &ToolCall) -> ToolOutcome {
        match marked(&self.plan, &call.arguments) {
            Ok(plan) => {
                self.plan = plan;
                self.tell_plan();
                let done = self
                    .plan
                    .iter()
                    .filter(|step| step.status == PlanStatus::Completed)
                    .count();
                ToolOutcome {
                    ok: true,
                    content: format!(
                        "the plan is marked: {done} of {} steps done",
                        self.plan.len()
                    ),
                    decision: None,
                }
            }
            Err(why) => failure(format!("the plan is unchanged: {why}")),
        }
    }

    /// Tells the front-end the plan as it stands.
    pub(super) fn tell_plan(&self) {
        self.frontend.notify(&Notification::TurnPlan {
            session: self.runtime.id(),
            steps: self.plan.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_marked_by_number_and_a_bad_change_changes_nothing() {
        let plan = pending(vec!["Plan".to_owned(), "Build".to_owned()]);
        let marked_once = marked(
            &plan,
            &json!({"steps": [{"step": 1, "status": "completed"}, {"step": 2, "status": "in_progress"}]}),
        )
        .unwrap();
        assert_eq!(marked_once[0].status, PlanStatus::Completed);
        assert_eq!(marked_once[1].status, PlanStatus::InProgress);
        for bad in [
            json!({"steps": [{"step": 3, "status": "completed"}]}),
            json!({"steps": [{"step": 0, "status": "completed"}]}),
            json!({"steps": [{"step": 1, "status": "done"}]}),
            json!({"steps": "all"}),
        ] {
            assert!(marked(&plan, &bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_tool_names_each_step_by_its_number() {
        let tool = plan_tool(&pending(vec!["Plan".to_owned(), "Build".to_owned()]));
        assert!(
            tool.description.ends_with("The plan: 1. Plan 2. Build"),
            "{}",
            tool.description
        );
        assert_eq!(
            tool.schema["properties"]["steps"]["items"]["properties"]["step"]["maximum"],
            2
        );
    }
}
