;; The default prompt in a worktree session, and the procedures it is made of.

(define prompt (system-prompt))

(check "the prompt starts with who the agent is"
       (starts-with? prompt (default-identity)))
(check "the working rules are in it" (contains? prompt (working-rules)))
(check "the worktree section is in it" (contains? prompt (worktree-section)))
(check "the primitives are listed with their parameters"
       (contains? prompt "- shell-exec [argv] [script]: Runs a command."))

(define section (worktree-section))
(check "the section names the branch" (contains? section "nodwyn/0badcafe"))
(check "the section names the base and its commit"
       (contains? section "main (commit 1234567890abcdef1234567890abcdef12345678)"))
(check "the section names the repository" (contains? section "/repo"))
(check "the section says others work beside it" (contains? section "Other sessions"))
(check "the section sends the work through git-land" (contains? section "git-land"))
(check "the section forbids committing through the shell"
       (contains? section "Never commit, rebase, merge or push through the shell"))
(check "the section keeps signing on" (contains? section "never turn commit signing off"))
(check "the section says to extract HEAD instead of stashing"
       (contains? section "git archive HEAD | tar -x -C"))
(check "the section says why not the stash" (contains? section "shared by every worktree"))

(define tree (worktree))
(check-equal? "worktree is an association list in a fixed order"
              (map car tree) '("repository" "branch" "name" "base" "base-commit" "path" "port"))
(check-equal? "the port" (field tree "port") 14321)
(check "the section tells the port and its variable"
       (contains? section "Your port is 14321 (also in $NODWYN_PORT)"))
(check-equal? "the branch" (cdr (assoc "branch" tree)) "nodwyn/0badcafe")
(check-equal? "the path" (field tree "path") "/repo/.nodwyn/worktrees/0badcafe")
