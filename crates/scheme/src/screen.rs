//! Screening untrusted Scheme before steel compiles it.
//!
//! Some of steel's reach happens at compile time, before any procedure can be replaced:
//! `(require "/abs/file.scm")` reads files, and `defmacro`, `begin-for-syntax` and the
//! `syntax-case` form of `define-syntax` run code in steel's kernel, which is not sandboxed. Only
//! `(define-syntax NAME (syntax-rules ...))` macros, which rewrite without running anything, pass. Steel's parser also recurses once per level of
//! nesting, so a deeply nested file overflows the stack. This pass reads the source with steel's
//! own lexer (which does not recurse) and refuses both before the parser sees them.

use steel::parser::lexer::TokenStream;
use steel::parser::tokens::TokenType;

use crate::error::Error;
use crate::source::Source;

/// How deeply parentheses may nest in an untrusted source.
pub const MAX_NESTING: usize = 128;

/// Forms and procedures that reach outside the sandbox or into steel's internals.
const FORBIDDEN: &[&str] = &[
    "require-builtin",
    "defmacro",
    "begin-for-syntax",
    "syntax-case",
    "with-syntax",
    "quasisyntax",
    "let-syntax",
    "letrec-syntax",
    "define-syntax-rule",
    // Binds names in a list the reserved-name check below does not read.
    "define-values",
    "load",
    "load-expanded",
    "eval",
    "eval!",
    "eval-string",
    "expand!",
    "run!",
    "read!",
    "emit-expanded",
];

/// Refuses `source` if it uses a forbidden form, nests deeper than [`MAX_NESTING`], or defines
/// or `set!`s one of the `reserved` names (the primitives, `worktree`: `(fs-read ...)` is always
/// the primitive); the error names the place.
pub fn screen(source: &Source, reserved: &[String]) -> Result<(), Error> {
    let mut depth = 0usize;
    // The kinds of the last tokens, to see `(define NAME`, `(define (NAME` and `(set! NAME`.
    let mut recent: [Kind; 3] = [Kind::Other; 3];
    // How many tokens after `define-syntax` have matched `NAME (syntax-rules`.
    let mut macro_form: Option<usize> = None;
    for token in TokenStream::new(&source.text, true, None) {
        let token = match token {
            Ok(token) => token,
            // A lexical error is steel's to report, with its own words and place.
            Err(_) => return Ok(()),
        };
        let place = || source.place(token.span.start as usize);
        macro_form = match (macro_form, &token.ty) {
            // Only at top level: one inside a macro's template could be completed at the use
            // site with a list where the name goes, which steel reads as the syntax-case form.
            (None, TokenType::DefineSyntax) if depth != 1 => {
                return Err(Error::Refused(format!(
                    "{}: `define-syntax` is available in nodwyn's Scheme only as a top-level form",
                    place()
                )));
            }
            (None, TokenType::DefineSyntax) => Some(0),
            (Some(0), TokenType::Identifier(_)) => Some(1),
            (Some(1), TokenType::OpenParen(..)) => Some(2),
            (Some(2), TokenType::SyntaxRules) | (None, _) => None,
            (Some(_), _) => {
                return Err(Error::Refused(format!(
                    "{}: only `(define-syntax NAME (syntax-rules ...))` macros are available in \
                     nodwyn's Scheme (other forms run code while compiling, outside the sandbox)",
                    place()
                )));
            }
        };
        match &token.ty {
            TokenType::OpenParen(..) => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(Error::Refused(format!(
                        "{}: nested more than {MAX_NESTING} levels deep; nodwyn does not compile it",
                        place()
                    )));
                }
            }
            TokenType::CloseParen(_) => depth = depth.saturating_sub(1),
            TokenType::Require => return Err(forbidden(&place(), "require")),
            TokenType::Identifier(name) => {
                let name = name.resolve();
                if is_forbidden(name) {
                    return Err(forbidden(&place(), name));
                }
                let binds = matches!(
                    recent,
                    [_, Kind::Open, Kind::Binds] | [Kind::Open, Kind::Binds, Kind::Open]
                );
                if binds && reserved.iter().any(|r| r == name) {
                    return Err(Error::Refused(format!(
                        "{}: `{name}` is nodwyn's own and cannot be redefined (a call to it must \
                         always be the real one)",
                        place()
                    )));
                }
            }
            _ => {}
        }
        recent = [
            recent[1],
            recent[2],
            match &token.ty {
                TokenType::OpenParen(..) => Kind::Open,
                TokenType::Define | TokenType::Set => Kind::Binds,
                // `(struct NAME ...)` defines NAME as the constructor.
                TokenType::Identifier(name) if name.resolve() == "struct" => Kind::Binds,
                _ => Kind::Other,
            },
        ];
    }
    Ok(())
}

/// Refuses a source whose last form is never closed, naming where that form opens. steel would
/// report the end of what it compiled, which for a layer is past the file (nodwyn appends
/// generated code to each layer), so the place would point nowhere in the file. A lexical error
/// is left for steel to report.
pub fn refuse_unclosed(source: &Source) -> Result<(), Error> {
    let mut open = Vec::new();
    for token in TokenStream::new(&source.text, true, None) {
        let Ok(token) = token else {
            return Ok(());
        };
        match token.ty {
            TokenType::OpenParen(..) => open.push(token.span.start as usize),
            TokenType::CloseParen(_) => {
                open.pop();
            }
            _ => {}
        }
    }
    match open.first() {
        None => Ok(()),
        Some(start) => Err(Error::Refused(format!(
            "{}: this form is never closed: the file ends before its closing parenthesis",
            source.place(*start)
        ))),
    }
}

/// What the reserved-name check remembers of a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Open,
    /// `define`, `set!`, `struct`: binds the name that follows (or opens its list).
    Binds,
    Other,
}

fn is_forbidden(name: &str) -> bool {
    FORBIDDEN.contains(&name)
        || name.starts_with('%')
        || name.starts_with("#%")
        || name.starts_with("##")
        || name.contains("::")
}

fn forbidden(place: &str, name: &str) -> Error {
    Error::Refused(format!(
        "{place}: `{name}` is not available in nodwyn's Scheme (files, processes and other engines \
         are reached only through nodwyn's primitives)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(text: &str) -> String {
        match screen(&Source::expression(text), &["fs-read".to_owned()]) {
            Err(Error::Refused(sentence)) => sentence,
            other => panic!("{text:?} was not refused: {other:?}"),
        }
    }

    #[test]
    fn refuses_compile_time_reach_with_its_place() {
        assert!(
            refusal("(+ 1 2)\n  (require \"/etc/x.scm\")")
                .starts_with("<expression>:2:4: `require`")
        );
        for text in [
            "(require-builtin steel/process)",
            "(defmacro (m stx) 1)",
            "(begin-for-syntax 1)",
            "(eval! \"(+ 1 2)\")",
            "(%module-get% x 'y)",
            "(#%private-cycle-collector)",
            "(Engine::new)",
            "(load \"/tmp/x.scm\")",
            "(define-syntax (m stx) (syntax-case stx () [(_) 1]))",
            "(define-syntax m (lambda (stx) 1))",
            "(let-syntax ([m (syntax-rules () [(_) 1])]) (m))",
            "(define-syntax mk (syntax-rules () [(_ head) (define-syntax head (syntax-rules () [(_) 1]))]))",
            "(begin (define-syntax m (syntax-rules () [(_) 1])))",
        ] {
            refusal(text);
        }
        let rules = "(define-syntax swap (syntax-rules () [(_ a b) (list b a)]))";
        assert!(screen(&Source::expression(rules), &[]).is_ok());
    }

    #[test]
    fn the_same_words_in_strings_and_comments_are_fine() {
        let text = "; (require \"x\")\n(define (f) \"load eval! require\") #| defmacro |#";
        assert!(screen(&Source::expression(text), &[]).is_ok());
    }

    #[test]
    fn a_primitive_cannot_be_redefined() {
        for text in [
            "(define (fs-read path) (shell-exec \"curl\"))",
            "(define fs-read 1)",
            "(set! fs-read (lambda (p) p))",
            "(defn fs-read 1)",
            "(struct fs-read (a))",
        ] {
            assert!(
                refusal(text).contains("`fs-read` is nodwyn's own"),
                "{text}"
            );
        }
        let fine = "(define (read-it) (fs-read \"a\")) (let ([x (fs-read \"b\")]) x)";
        assert!(screen(&Source::expression(fine), &["fs-read".to_owned()]).is_ok());
    }

    #[test]
    fn caps_nesting_without_recursing() {
        let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(refusal(&deep).contains("nested more than 128 levels"));
        let fine = format!("{}1{}", "(list ".repeat(100), ")".repeat(100));
        assert!(screen(&Source::expression(fine), &[]).is_ok());
    }
}
