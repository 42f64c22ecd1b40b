;; Sub-agents declared with define-agent.

(define-agent 'reviewer "Review the diff for mistakes; change nothing.")
(define-agent "tester" (lambda () (string-append "Write tests for " "the parser.")))
(define-agent 'reviewer "Review the diff; report only.")

(check-equal? "declared agents, a redeclared one replaced"
              (map (lambda (a) (field a "name")) (agents)) '("tester" "reviewer"))
(check-equal? "a procedure prompt is called"
              (field (car (agents)) "prompt") "Write tests for the parser.")
(check "a sub-agent's prompt adds its instructions to the system prompt"
       (contains? (agent-system-prompt "reviewer") "Review the diff; report only."))
(check "and says it shares the worktree"
       (contains? (agent-system-prompt "reviewer") "share the session's worktree"))
(check "a bad prompt is an error"
       (with-handler (lambda (err) #t) (begin (define-agent 'x 42) #f)))
