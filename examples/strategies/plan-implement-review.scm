;;; plan, implement, review: a strategy for .nodwyn/init.scm.
;;;
;;; Before each turn, (on-turn task) asks the session's agent to work in three steps: a planner
;;; sub-agent writes a plan, the agent implements it and runs the tests, and a reviewer
;;; sub-agent reads the changes (git-diff) and answers APPROVED or FINDINGS; findings are
;;; addressed and reviewed again, at most `review-rounds` rounds in all.
;;;
;;; Copy it to .nodwyn/init.scm; nodwyn asks you once to approve it (and again when it changes).
;;; The sub-agents are told to change nothing; today that is an instruction, not a limit (a
;;; sub-agent is offered the same primitives as the agent, every call judged by the guard).

(define review-rounds 2)

(define-agent 'planner
  "Read the code the task touches and write a short numbered plan: which files change and how, and which test shows that the change works. Change nothing.")

(define-agent 'reviewer
  "Read the session's changes with git-diff and judge them against the task. Answer APPROVED when they do what it asks, with tests, and nothing else; otherwise answer FINDINGS: and what must change. Change nothing.")

;; The turn's steps, which the agent marks as it goes (its `plan` tool) and an editor shows.
(define-plan
  "Plan with the planner sub-agent"
  "Implement the plan and run the tests"
  "Review with the reviewer sub-agent, and address its findings")

(define (on-turn task)
  (string-append
   task
   "\n\nWork in three steps. 1. Call the agent tool with name \"planner\" and this task, and follow its plan. "
   "2. Implement the plan and run the tests. "
   "3. Call the agent tool with name \"reviewer\"; if it answers FINDINGS, address them and call it again, at most "
   (number->string review-rounds)
   " rounds in all. Mark each step with the plan tool as you begin and finish it. "
   "Then say what you changed and what the reviewer said."))
