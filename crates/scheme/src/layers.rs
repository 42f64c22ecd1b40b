//! Loading Scheme in layers, later definitions winning everywhere.
//!
//! steel compiles a call to a top-level procedure against the definition it sees, so redefining
//! `working-rules` in a later file would leave `system-prompt` (compiled earlier) calling the old
//! one. Each layer therefore gets a generated tail that can `set!` every name it defines (which
//! also makes steel call those names through their slot), and after a later layer redefines a
//! name, every earlier layer that defined it is pointed at the new value.

use steel::parser::lexer::TokenStream;
use steel::parser::tokens::TokenType;

use crate::error::Error;
use crate::host::Host;
use crate::interpreter::Interpreter;
use crate::source::{Origin, Source, string_literal};

/// The names each loaded layer defines, in load order.
#[derive(Debug, Default)]
pub(crate) struct Layers {
    defined: Vec<Vec<String>>,
}

impl Layers {
    /// The layer that defined `name` last, the one whose definition is in force.
    pub(crate) fn definer_of(&self, name: &str) -> Option<usize> {
        self.defined
            .iter()
            .rposition(|names| names.iter().any(|n| n == name))
    }

    /// Loads `source` as the next layer: screens it unless it is nodwyn's own, runs it with its
    /// rebinding tail, then points earlier layers at what it redefined. Gives the layer's index.
    pub(crate) fn load(
        &mut self,
        interpreter: &mut Interpreter,
        source: Source,
        host: &mut dyn Host,
    ) -> Result<usize, Error> {
        if source.origin == Origin::Untrusted {
            interpreter.screen(&source)?;
        }
        crate::screen::refuse_unclosed(&source)?;
        let names = defined_names(&source.text);
        let index = self.defined.len();
        let text = format!("{}\n{}", source.text, rebinding_tail(index, &names));
        let name = source.name.clone();
        interpreter
            .run(
                Source {
                    name: source.name,
                    text,
                    origin: Origin::Builtin,
                },
                host,
            )
            .map_err(|error| match error {
                // An error raised inside a procedure the file called (define-agent's checks)
                // names the place it was raised; the file that called it comes first.
                Error::Scheme(text) if !text.starts_with(&name) => {
                    Error::Scheme(format!("{name}: {text}"))
                }
                other => other,
            })?;
        let mut rebind = String::new();
        for (earlier, their_names) in self.defined.iter().enumerate() {
            for name in names.iter().filter(|n| their_names.contains(n)) {
                rebind.push_str(&format!(
                    "({} {} {name})\n",
                    rebinder(earlier),
                    string_literal(name)
                ));
            }
        }
        self.defined.push(names);
        if !rebind.is_empty() {
            interpreter.run(
                Source {
                    name: "<rebinding>".to_owned(),
                    text: rebind,
                    origin: Origin::Builtin,
                },
                host,
            )?;
        }
        Ok(index)
    }
}

fn rebinder(layer: usize) -> String {
    format!("%nodwyn-rebind-{layer}!")
}

/// `(define (%nodwyn-rebind-N! name value) ...)`: sets the layer's own slot of `name`.
fn rebinding_tail(layer: usize, names: &[String]) -> String {
    let mut tail = format!("(define ({} name value)\n  (cond\n", rebinder(layer));
    for name in names {
        tail.push_str(&format!(
            "    [(equal? name {}) (set! {name} value)]\n",
            string_literal(name)
        ));
    }
    tail.push_str("    [else #f]))\n");
    tail
}

/// The names a source defines at top level: `(define name ...)` and `(define (name ...) ...)`.
pub fn defined_names(text: &str) -> Vec<String> {
    enum Seen {
        Define,
        Open,
        Name(String),
        Other,
    }
    let mut names: Vec<String> = Vec::new();
    let mut depth = 0usize;
    // The first tokens of the current top-level form.
    let mut form: Vec<Seen> = Vec::new();
    for token in TokenStream::new(text, true, None) {
        let Ok(token) = token else { break };
        let seen = match &token.ty {
            TokenType::OpenParen(..) => Seen::Open,
            TokenType::Define => Seen::Define,
            TokenType::Identifier(name) => Seen::Name(name.resolve().to_owned()),
            _ => Seen::Other,
        };
        let opens_form = depth == 0 && matches!(seen, Seen::Open);
        match &token.ty {
            TokenType::OpenParen(..) => depth += 1,
            TokenType::CloseParen(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
        if opens_form {
            form.clear();
            continue;
        }
        if depth == 0 || form.len() >= 3 {
            continue;
        }
        form.push(seen);
        let name = match form.as_slice() {
            [Seen::Define, Seen::Name(name)] | [Seen::Define, Seen::Open, Seen::Name(name)] => {
                Some(name.clone())
            }
            _ => None,
        };
        if let Some(name) = name
            && !names.contains(&name)
        {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_top_level_definitions_only() {
        let text = "(define (a x) (define (inner) 1) x)\n(define b 2)\n; (define c 3)\n\
                    (display (define-agent 'd \"x\"))\n(define (a) 4)";
        assert_eq!(defined_names(text), vec!["a".to_owned(), "b".to_owned()]);
    }
}
