;; An override redefines a part; the default stays reachable, and procedures defined before the
;; override (system-prompt) use the new definition once the file has loaded.

(define (working-rules)
  (lines (default-working-rules) "- Run cargo fmt before you say you are done."))

(define (identity) "You are a careful reviewer.")

(define (after-load)
  (check "system-prompt uses the override"
         (contains? (system-prompt) "- Run cargo fmt before you say you are done."))
  (check "the default is still there" (contains? (system-prompt) (default-working-rules)))
  (check "a second override also reaches system-prompt"
         (starts-with? (system-prompt) "You are a careful reviewer.")))
