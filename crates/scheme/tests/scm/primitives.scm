;; Primitives are procedures bound by name; what they give back is an association list, and a
;; refusal is an error the script can catch, carrying the guard's sentence.

(define read (fs-read "src/main.rs"))
(check-equal? "fs-read gives its content" (field read "content") "fn main() {}\n")
(check-equal? "arguments arrive in order"
              (field (fs-write "a.txt" "text") "written") '("a.txt" "text"))

(define refusal
  (with-handler (lambda (err) (error-object-message err))
                (shell-exec "cargo" "test")))
(check "a refusal is caught with the guard's sentence"
       (contains? refusal "was refused: it needs a person's approval"))

(define listed (map (lambda (p) (field p "name")) (primitives)))
(check-equal? "(primitives) lists every bound primitive" listed
              '("fs-read" "fs-write" "shell-exec" "git-land"))
(check "in a worktree session git-land is offered" (contains? (tool-section) "- git-land message"))

;; String arguments of shell-exec are gathered into its argv; a list is passed as it is.
(check-equal? "strings are gathered" (field (shell-exec "echo" "a" "b") "argv") '("echo" "a" "b"))
(check-equal? "a list goes first" (field (shell-exec (list "echo" "a") #f) "rest") 2)

;; A procedure composed from primitives, as a strategy would write it.
(define (read-all paths) (map (lambda (path) (field (fs-read path) "content")) paths))
(check-equal? "a composed procedure" (length (read-all (list "a" "b"))) 2)
