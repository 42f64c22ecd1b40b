//! Bounds on the procedures that could ask for gigabytes in one call.
//!
//! steel has no memory limit, and a failed allocation aborts the whole program, so one call such
//! as `(expt 2 100000000000)`, `(make-string 10000000000)`, or a `string-append` of a string with
//! itself thirty times over must be refused before it runs. Each such builtin is wrapped to
//! measure what it would make and refuse beyond a size no prompt or strategy needs. Memory a loop
//! builds up a little per step is watched by the interpreter instead ([`crate::Limits`]).

use std::sync::Arc;

use steel::rerrs::{ErrorKind, SteelErr};
use steel::rvals::{FunctionSignature, MutFunctionSignature, SteelVal};
use steel::steel_vm::engine::Engine;

use crate::sandbox::refusing_because;

/// The most text one call may make: 16 MiB.
const TEXT: usize = 16 << 20;

/// The most items one call may make: about four million.
const ITEMS: usize = 1 << 22;

/// How a call is measured before it runs.
#[derive(Debug, Clone, Copy)]
enum Measure {
    /// Integer argument N.
    Argument(usize),
    /// The text it would make: the strings it is given, those inside lists included, with a
    /// separator counted once per list item (`string-join`).
    Text,
    /// The items of the lists and vectors it is given, and the characters of its strings.
    Items,
    /// `string-replace`: the text with every match replaced.
    Replacement,
}

/// The bounded procedures: how each is measured and the largest measure allowed.
const BOUNDED: &[(&str, Measure, usize)] = &[
    ("expt", Measure::Argument(1), 4_096),
    ("arithmetic-shift", Measure::Argument(1), 65_536),
    ("make-string", Measure::Argument(0), TEXT),
    ("make-vector", Measure::Argument(0), ITEMS),
    ("make-bytes", Measure::Argument(0), TEXT),
    ("make-bytevector", Measure::Argument(0), TEXT),
    ("make-list", Measure::Argument(0), ITEMS),
    ("range", Measure::Argument(1), ITEMS),
    ("string-append", Measure::Text, TEXT),
    ("string-join", Measure::Text, TEXT),
    ("list->string", Measure::Items, TEXT),
    ("string-replace", Measure::Replacement, TEXT),
    ("append", Measure::Items, ITEMS),
    ("vector-append", Measure::Items, ITEMS),
    ("immutable-vector-append", Measure::Items, ITEMS),
];

/// Procedures that can double what they are given in one call and that nodwyn cannot measure
/// (mutable vectors, byte vectors): refused.
const UNMEASURED: &[&str] = &["vector-append!", "vec-append", "bytes-append"];

/// A builtin procedure of steel's, as the function it is.
#[derive(Clone, Copy)]
enum Original {
    Plain(FunctionSignature),
    Mutating(MutFunctionSignature),
}

/// Wraps every bounded procedure of `engine`. One that is not a plain builtin function (steel
/// makes some with access to its machine) cannot be wrapped, and is refused instead.
pub(crate) fn bound_sizes(engine: &mut Engine) {
    for &(name, measure, limit) in BOUNDED {
        let wrapped = match engine.extract_value(name) {
            Ok(SteelVal::FuncV(f)) => bounded(name, Original::Plain(f), measure, limit),
            Ok(SteelVal::MutFunc(f)) => bounded(name, Original::Mutating(f), measure, limit),
            _ => refusing_because(name, "it allocates without a bound"),
        };
        engine.register_value(name, wrapped);
    }
    for name in UNMEASURED {
        engine.register_value(name, refusing_because(name, "it allocates without a bound"));
    }
}

/// `original`, refusing a call whose `measure` is beyond `limit`.
fn bounded(name: &'static str, original: Original, measure: Measure, limit: usize) -> SteelVal {
    SteelVal::anonymous_boxed_function(Arc::new(move |args: &[SteelVal]| {
        let size = size_of(measure, args);
        if size > limit {
            return Err(SteelErr::new(
                ErrorKind::Generic,
                format!("{name}: {size} is larger than nodwyn's Scheme allows ({limit})"),
            ));
        }
        match original {
            Original::Plain(f) => f(args),
            Original::Mutating(f) => f(&mut args.to_vec()),
        }
    }))
}

fn size_of(measure: Measure, args: &[SteelVal]) -> usize {
    match measure {
        Measure::Argument(index) => match args.get(index) {
            Some(SteelVal::IntV(n)) => n.unsigned_abs(),
            _ => 0,
        },
        Measure::Text => {
            let (mut inside_lists, mut items, mut loose) = (0usize, 0usize, 0usize);
            for arg in args {
                match arg {
                    SteelVal::StringV(s) => loose = loose.saturating_add(s.len()),
                    SteelVal::ListV(list) => {
                        for item in list.iter() {
                            items += 1;
                            if let SteelVal::StringV(s) = item {
                                inside_lists = inside_lists.saturating_add(s.len());
                            }
                        }
                    }
                    _ => {}
                }
            }
            inside_lists.saturating_add(loose.saturating_mul(items.max(1)))
        }
        Measure::Items => args
            .iter()
            .map(|arg| match arg {
                SteelVal::ListV(list) => list.len(),
                SteelVal::VectorV(vector) => vector.len(),
                SteelVal::StringV(s) => s.len(),
                _ => 0,
            })
            .fold(0usize, usize::saturating_add),
        Measure::Replacement => match args {
            [
                SteelVal::StringV(text),
                SteelVal::StringV(from),
                SteelVal::StringV(to),
                ..,
            ] => {
                let matches = if from.is_empty() {
                    text.chars().count() + 1
                } else {
                    text.len() / from.len()
                };
                text.len().saturating_add(matches.saturating_mul(to.len()))
            }
            _ => 0,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(text: &str) -> SteelVal {
        SteelVal::StringV(text.into())
    }

    #[test]
    fn text_counts_a_separator_once_per_item() {
        let list = SteelVal::ListV(
            vec![string("ab"), string("cd"), string("e")]
                .into_iter()
                .collect(),
        );
        assert_eq!(size_of(Measure::Text, &[string("ab"), string("cde")]), 5);
        assert_eq!(size_of(Measure::Text, &[list, string("--")]), 5 + 2 * 3);
    }

    #[test]
    fn a_replacement_counts_every_possible_match() {
        let size = size_of(
            Measure::Replacement,
            &[string("aaaa"), string("a"), string("xyz")],
        );
        assert_eq!(size, 4 + 4 * 3);
    }
}
