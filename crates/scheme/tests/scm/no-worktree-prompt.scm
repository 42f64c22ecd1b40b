;; Outside a worktree session: (worktree) is #f and the worktree section is empty.

(check-equal? "no worktree" (worktree) #f)
(check-equal? "an empty worktree section" (worktree-section) "")
(check "the prompt leaves the section out" (not (contains? (system-prompt) "Your worktree")))
(check "the prompt has no empty sections" (not (contains? (system-prompt) "\n\n\n")))
(check "outside a worktree session git-land is not offered"
       (not (contains? (tool-section) "git-land")))
(check "other primitives are" (contains? (tool-section) "- fs-read path: Reads a file."))
