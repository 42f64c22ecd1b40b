//! Scheme values to JSON and back, the one shape primitives take and give.
//!
//! To JSON: booleans, numbers, strings and symbols as themselves; a list whose every element is
//! an entry with a string or symbol `car`, at least one of them a dotted pair (an association
//! list; an entry whose value is a list is itself a list, `("k" . ("a"))` being `("k" "a")`)
//! as an object; a pair elsewhere as a two-element array; other lists and
//! vectors as arrays; a hash table with string or symbol keys as an object; `void` as `null`.
//! From JSON: objects become association lists of `(key . value)` pairs, keys sorted, arrays
//! lists, `null` `#f`.

use serde_json::{Map, Number, Value};
use steel::rvals::SteelVal;

/// How deep a value may nest when converted; deeper is refused rather than recursed into.
const MAX_DEPTH: usize = 64;

/// The JSON form of `value`, or why it has none.
pub fn to_json(value: &SteelVal) -> Result<Value, String> {
    to_json_at(value, 0)
}

fn to_json_at(value: &SteelVal, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("a value nested more than {MAX_DEPTH} levels deep"));
    }
    Ok(match value {
        SteelVal::BoolV(b) => Value::Bool(*b),
        SteelVal::IntV(i) => Value::from(*i as i64),
        SteelVal::NumV(f) => Number::from_f64(*f)
            .map(Value::Number)
            .ok_or_else(|| format!("{f} is not a number JSON can hold"))?,
        SteelVal::StringV(s) | SteelVal::SymbolV(s) => Value::String(s.as_str().to_owned()),
        SteelVal::CharV(c) => Value::String(c.to_string()),
        SteelVal::Void => Value::Null,
        SteelVal::ListV(list) => {
            let items: Vec<&SteelVal> = list.iter().collect();
            let entries: Option<Vec<(String, SteelVal)>> =
                items.iter().map(|item| alist_entry(item)).collect();
            let dotted = items.iter().any(|item| matches!(item, SteelVal::Pair(_)));
            if let (Some(entries), true) = (entries, dotted) {
                let mut object = Map::new();
                for (key, item) in entries {
                    object.insert(key, to_json_at(&item, depth + 1)?);
                }
                Value::Object(object)
            } else {
                Value::Array(
                    items
                        .into_iter()
                        .map(|item| to_json_at(item, depth + 1))
                        .collect::<Result<_, _>>()?,
                )
            }
        }
        // A pair outside an association list.
        SteelVal::Pair(pair) => Value::Array(vec![
            to_json_at(pair.car_ref(), depth + 1)?,
            to_json_at(pair.cdr_ref(), depth + 1)?,
        ]),
        SteelVal::VectorV(vector) => Value::Array(
            vector
                .iter()
                .map(|item| to_json_at(item, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        SteelVal::HashMapV(map) => {
            let mut object = Map::new();
            for (key, item) in map.iter() {
                let key = match key {
                    SteelVal::StringV(s) | SteelVal::SymbolV(s) => s.as_str().to_owned(),
                    other => return Err(format!("a hash table key {other} that is not a string")),
                };
                object.insert(key, to_json_at(item, depth + 1)?);
            }
            Value::Object(object)
        }
        other => return Err(format!("{other} cannot be passed to a primitive")),
    })
}

/// The key and value of an association-list entry: a pair or a list whose `car` is a string
/// or a symbol.
fn alist_entry(value: &SteelVal) -> Option<(String, SteelVal)> {
    let (car, cdr) = match value {
        SteelVal::Pair(pair) => (pair.car(), pair.cdr()),
        SteelVal::ListV(list) => {
            let mut items = list.iter();
            let car = items.next()?.clone();
            (car, SteelVal::ListV(items.cloned().collect()))
        }
        _ => return None,
    };
    match car {
        SteelVal::StringV(s) | SteelVal::SymbolV(s) => Some((s.as_str().to_owned(), cdr)),
        _ => None,
    }
}

/// The Scheme form of `value`.
pub fn from_json(value: &Value) -> SteelVal {
    match value {
        Value::Null => SteelVal::BoolV(false),
        Value::Bool(b) => SteelVal::BoolV(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) if isize::try_from(i).is_ok() => SteelVal::IntV(i as isize),
            _ => SteelVal::NumV(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => string(s),
        Value::Array(items) => SteelVal::ListV(items.iter().map(from_json).collect()),
        Value::Object(object) => alist(
            object
                .iter()
                .map(|(key, item)| (key.as_str(), from_json(item))),
        ),
    }
}

/// A Scheme string.
pub fn string(text: &str) -> SteelVal {
    SteelVal::StringV(text.into())
}

/// An association list of `(key . value)` pairs, keys as strings.
pub fn alist<'a>(entries: impl IntoIterator<Item = (&'a str, SteelVal)>) -> SteelVal {
    SteelVal::ListV(
        entries
            .into_iter()
            .map(|(key, mut item)| {
                steel::primitives::lists::cons(&mut string(key), &mut item)
                    .unwrap_or(SteelVal::Void)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_become_association_lists_and_back() {
        let value =
            json!({"path": "a.rs", "lines": 3, "ok": true, "tags": ["x", "y"], "none": null});
        let scheme = from_json(&value);
        let SteelVal::ListV(entries) = &scheme else {
            panic!("not a list: {scheme}");
        };
        let first = entries.iter().next().expect("an entry");
        // An object's keys keep the order they were written in.
        assert_eq!(
            alist_entry(first).map(|(key, _)| key).as_deref(),
            Some("path")
        );
        let back = to_json(&scheme).expect("converts back");
        // `null` comes back as `false`: Scheme has one false value.
        assert_eq!(
            back,
            json!({"path": "a.rs", "lines": 3, "ok": true, "tags": ["x", "y"], "none": false})
        );
    }

    #[test]
    fn a_pair_outside_an_association_list_is_a_two_element_array() {
        let pair = alist([("k", SteelVal::IntV(2))]);
        let SteelVal::ListV(entries) = pair else {
            unreachable!()
        };
        let mixed: Vec<SteelVal> = vec![SteelVal::IntV(1), entries.iter().next().unwrap().clone()];
        assert_eq!(
            to_json(&SteelVal::ListV(mixed.into_iter().collect())).unwrap(),
            json!([1, ["k", 2]])
        );
    }

    #[test]
    fn an_empty_list_is_an_empty_array() {
        assert_eq!(
            to_json(&SteelVal::ListV(
                Vec::<SteelVal>::new().into_iter().collect()
            ))
            .unwrap(),
            json!([])
        );
    }

    #[test]
    fn procedures_are_refused_with_a_sentence() {
        let procedure = SteelVal::FuncV(|_| Ok(SteelVal::Void));
        assert!(
            to_json(&procedure)
                .unwrap_err()
                .contains("cannot be passed")
        );
    }
}
