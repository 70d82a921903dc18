//! The regions of an argument the catalog declares with a type (in either policy): values
//! grouped by the truth of every atom on the argument and by whether each declared type
//! accepts them, one witness per region.
//!
//! The engine refuses a call whose argument has the wrong type (`invalid_argument`) before
//! any rule runs, so a value's decision depends on both. The atoms judge an array by its
//! values (nested arrays flattened); a type judges its shape and the kind of each value. A
//! value's region is therefore its atoms' truth and, for each declared type and each element
//! type inside it (`array<array<integer>>` has `array<integer>` and `integer`), whether that
//! type accepts it. The region of an array follows from its elements' regions, so the
//! regions are closed under making arrays of witnesses (nested ones included), starting from
//! one value of every kind and atom truth (a string, an integer, a fractional number, a
//! boolean, `null`, an object).

use super::atoms::Atom;
use super::regions::GaveUp;
use crate::resolve::{ArgType, BaseType};
use serde_json::Value;
use std::collections::HashSet;

/// A value's region: the atoms' truth on its values, and whether each type accepts it.
type Region = (Vec<bool>, Vec<bool>);

/// The declared types and every element type inside them, each once.
fn with_element_types(declared: &[ArgType]) -> Vec<ArgType> {
    let mut out: Vec<ArgType> = Vec::new();
    for &t in declared {
        let mut t = t;
        loop {
            if !out.contains(&t) {
                out.push(t);
            }
            if t.arrays == 0 {
                break;
            }
            t = ArgType {
                arrays: t.arrays - 1,
                base: t.base,
            };
        }
    }
    out
}

/// For each type, the index of its element type (`None` when it is not an array type).
fn element_types(types: &[ArgType]) -> Vec<Option<usize>> {
    types
        .iter()
        .map(|t| {
            (t.arrays > 0).then(|| {
                let inner = ArgType {
                    arrays: t.arrays - 1,
                    base: t.base,
                };
                types.iter().position(|x| *x == inner)
            })?
        })
        .collect()
}

/// The region of an array from what its elements bring together: the atoms' truth, and each
/// array type accepts it when every element was accepted (a non-array type only if `any`).
fn array_region(types: &[ArgType], c: &Region) -> Region {
    (
        c.0.clone(),
        types
            .iter()
            .zip(&c.1)
            .map(|(t, &all)| {
                if t.arrays > 0 {
                    all
                } else {
                    t.base == BaseType::Any
                }
            })
            .collect(),
    )
}

/// The witnesses of the regions of a typed argument: `None` (absent) first, then one value
/// per region, the `leaves` (non-array candidates, simplest first) before the arrays.
/// `Err` when more than `cap` regions would be needed.
#[allow(
    clippy::indexing_slicing,
    reason = "`element` holds positions in `types`, whose entries each region has one flag for; `i` enumerates `lists` while it only grows"
)]
pub(crate) fn regions(
    atoms: &[Atom],
    declared: &[ArgType],
    leaves: Vec<Value>,
    cap: usize,
) -> Result<Vec<Option<Value>>, GaveUp> {
    let types = with_element_types(declared);
    let element = element_types(&types);
    let region_of = |v: &Value| -> Region {
        (
            atoms.iter().map(|a| a.holds(v)).collect(),
            types.iter().map(|t| t.mismatch(v).is_none()).collect(),
        )
    };
    // What an element brings to the array holding it: its atoms' truth, and for each array
    // type whether the element type accepts it.
    let brings = |r: &Region| -> Region {
        (
            r.0.clone(),
            element.iter().map(|e| e.is_none_or(|i| r.1[i])).collect(),
        )
    };
    let combine = |a: &Region, b: &Region| -> Region {
        (
            atoms
                .iter()
                .zip(a.0.iter().zip(&b.0))
                .map(|(atom, (&x, &y))| atom.combine(x, y))
                .collect(),
            a.1.iter().zip(&b.1).map(|(&x, &y)| x && y).collect(),
        )
    };
    let too_many = || format!("gave up after {cap} regions of typed values");

    let mut seen: HashSet<Region> = HashSet::new();
    let mut values: Vec<(Region, Value)> = Vec::new();
    for v in leaves {
        let r = region_of(&v);
        if seen.insert(r.clone()) {
            values.push((r, v));
        }
    }
    // What one element brings, with the element; and the element lists reached so far.
    let mut elements: Vec<(Region, Value)> = Vec::new();
    let mut elements_seen: HashSet<Region> = HashSet::new();
    let empty: Region = (
        atoms.iter().map(Atom::holds_on_empty).collect(),
        vec![true; types.len()],
    );
    let mut lists: Vec<(Region, Vec<Value>)> = vec![(empty.clone(), Vec::new())];
    let mut lists_seen: HashSet<Region> = HashSet::from([empty]);
    let mut changed = true;
    while changed {
        changed = false;
        for (r, v) in &values {
            let b = brings(r);
            if elements_seen.insert(b.clone()) {
                elements.push((b, v.clone()));
            }
        }
        let mut i = 0;
        while i < lists.len() {
            for (b, v) in &elements {
                let next = combine(&lists[i].0, b);
                if lists_seen.insert(next.clone()) {
                    if lists.len() >= cap {
                        return Err(too_many());
                    }
                    let mut list = lists[i].1.clone();
                    list.push(v.clone());
                    lists.push((next, list));
                }
            }
            i += 1;
        }
        for (c, list) in &lists {
            let r = array_region(&types, c);
            if seen.insert(r.clone()) {
                if values.len() >= cap {
                    return Err(too_many());
                }
                values.push((r, Value::Array(list.clone())));
                changed = true;
            }
        }
    }
    Ok(std::iter::once(None)
        .chain(values.into_iter().map(|(_, v)| Some(v)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn t(arrays: u8, base: BaseType) -> ArgType {
        ArgType { arrays, base }
    }

    fn leaves() -> Vec<Value> {
        vec![
            json!(""),
            json!(0),
            json!(0.5),
            json!(true),
            json!(null),
            json!({}),
        ]
    }

    /// Which of `types` accept each witness.
    fn verdicts(types: &[ArgType]) -> Vec<Vec<bool>> {
        let values = regions(&[], types, leaves(), 1_000).unwrap();
        assert_eq!(values[0], None);
        values
            .iter()
            .flatten()
            .map(|v| types.iter().map(|ty| ty.mismatch(v).is_none()).collect())
            .collect()
    }

    #[test]
    fn every_combination_of_nested_array_types_has_a_witness() {
        let types = [t(2, BaseType::Integer), t(1, BaseType::Number)];
        let seen = verdicts(&types);
        for want in [[true, true], [true, false], [false, true], [false, false]] {
            assert!(
                seen.iter().any(|v| v == &want),
                "{want:?} missing: {seen:?}"
            );
        }
        // An integer array next to a number array needs an array holding a fractional number.
        let values = regions(
            &[],
            &[t(1, BaseType::Integer), t(1, BaseType::Number)],
            leaves(),
            1_000,
        )
        .unwrap();
        assert!(
            values.iter().flatten().any(|v| v == &json!([0.5])),
            "{values:?}"
        );
    }

    #[test]
    fn each_base_type_is_told_from_every_other() {
        let types: Vec<ArgType> = BaseType::ALL.iter().map(|(_, b)| t(0, *b)).collect();
        let seen = verdicts(&types);
        // One witness per kind: string (also path), integer, fractional, boolean, object, and
        // `null` (which, as an array, only `any` accepts).
        assert_eq!(seen.len(), 6, "{seen:?}");
        for k in 0..types.len() {
            assert!(seen.iter().any(|v| v[k]) && seen.iter().any(|v| !v[k] || types[k].is_any()));
        }
    }
}
