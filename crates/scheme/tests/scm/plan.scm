;; A plan declared with define-plan: the steps of each turn, in order.

(check-equal? "no plan is declared at first" (plan) '())
(define-plan "Plan the change" "Implement it" "Review it")
(check-equal? "the steps, in order" (plan) '("Plan the change" "Implement it" "Review it"))
(define-plan "Only this")
(check-equal? "declared again, it is replaced" (plan) '("Only this"))
(check "a step that is not a string is an error"
       (with-handler (lambda (err) #t) (begin (define-plan "ok" 42) #f)))
(check "an empty step is an error"
       (with-handler (lambda (err) #t) (begin (define-plan "") #f)))
(check-equal? "a refused plan leaves the last one" (plan) '("Only this"))
