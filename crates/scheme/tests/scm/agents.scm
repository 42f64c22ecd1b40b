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

;; Options after the prompt: the tools it is offered, a model profile, leave to nest.
(define-agent 'reader "Read only." 'tools (list "fs-read" "git-diff") 'model "small" 'agents #t)
(define reader (car (filter (lambda (a) (equal? (field a "name") "reader")) (agents))))
(check-equal? "'tools is kept" (field reader "tools") '("fs-read" "git-diff"))
(check-equal? "'model is kept" (field reader "model") "small")
(check-equal? "'agents is kept" (field reader "agents") #t)
(check-equal? "an option not given is #f" (field (car (agents)) "model") #f)
(check "a sub-agent with 'tools is told which it has"
       (contains? (agent-system-prompt "reader") "you are given only these: fs-read, git-diff."))
(check "and that it may hand tasks on"
       (contains? (agent-system-prompt "reader") "hand a task to another"))
(check "one without 'tools is told nothing of the kind"
       (not (contains? (agent-system-prompt "tester") "given only these")))
(check "an unknown option is an error"
       (with-handler (lambda (err) #t) (begin (define-agent 'y "p" 'tool (list)) #f)))
(check "an option without a value is an error"
       (with-handler (lambda (err) #t) (begin (define-agent 'y "p" 'model) #f)))
(check "'tools must be a list of strings"
       (with-handler (lambda (err) #t) (begin (define-agent 'y "p" 'tools "fs-read") #f)))
(check "'agents must be a boolean"
       (with-handler (lambda (err) #t) (begin (define-agent 'y "p" 'agents "yes") #f)))
