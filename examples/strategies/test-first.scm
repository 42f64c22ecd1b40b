;;; test first: a strategy for .nodwyn/init.scm.
;;;
;;; The agent must show a failing test before it changes code outside the tests. The guard asks
;;; the strategy's (on-call call) about every call it would let run; this one refuses a write
;;; to a file that is not a test unless the latest test run of the session failed. So: write or
;;; change a test, run it with shell-exec and see it fail, then change the code until it passes.
;;; Once the tests pass, the next change to the code needs a new failing test.
;;;
;;; A test file is one in a `tests`, `test`, `spec` or `__tests__` folder, or named like a test
;;; (`test_x.py`, `x_test.go`, `x.test.ts`, `x_spec.rb`); a test run is a shell-exec whose command has `test` in it (`cargo test`,
;;; `pytest`, `npm test`, `sh tests/check.sh`). Change `test-file?` and `test-run?` to fit your
;;; project.
;;;
;;; What it does not see: a command's own writes (a shell-exec that edits files with sed) are
;;; confined to the worktree by nodwyn's sandbox but not judged file by file here; and a command
;;; an agent host runs itself (Claude Code's Bash, judged through `nodwyn mcp`'s permission
;;; prompt) has no exit code nodwyn knows, so run the tests with nodwyn's shell_exec.
;;;
;;; Copy it to .nodwyn/init.scm; nodwyn asks you once to approve it (and again when it changes).

;; The value under `key` in association list `alist`, or #f.
(define (field alist key)
  (let ([entry (assoc key alist)])
    (if entry (cdr entry) #f)))

(define test-folders '("tests" "test" "spec" "__tests__"))

;; Whether `path` (relative to the worktree) is a test: in a test folder, or named like one
;; (test_x.py, x_test.go, x.test.ts, x_spec.rb, x.spec.js).
(define (test-file? path)
  (let* ([parts (split-many path "/")]
         [name (last parts)])
    (or (not (null? (filter (lambda (folder) (member folder test-folders)) parts)))
        (starts-with? name "test_")
        (string-contains? name "_test.")
        (string-contains? name ".test.")
        (string-contains? name "_spec.")
        (string-contains? name ".spec."))))

(define (test-run? call)
  (let ([action (field call "action")])
    (and action
         (starts-with? action "shell-exec")
         (string-contains? action "test"))))

;; The latest test run that ran (not refused), or #f.
(define (latest-test-run calls)
  (let loop ([calls (reverse calls)])
    (cond [(null? calls) #f]
          [(and (test-run? (car calls)) (equal? (field (car calls) "ok") #t)) (car calls)]
          [else (loop (cdr calls))])))

(define (red? run)
  (let ([exit (field run "exit")])
    (and exit (not (= exit 0)))))

(define (on-call call)
  (let ([code (filter (lambda (path) (not (test-file? path))) (field call "writes"))]
        [run (latest-test-run (field call "recent-calls"))])
    (cond [(null? code) #f]
          [(and run (red? run)) #f]
          [run (string-append
                "test first: the latest test run passed, so there is no failing test for a change to "
                (car code)
                "; write a test that fails without the change, run it, then change the code")]
          [else (string-append
                 "test first: no test has run in this session; write a test that fails without the change to "
                 (car code)
                 ", run it with shell-exec, then change the code")])))
