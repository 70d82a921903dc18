//! Reading an argument path out of a call's arguments.
//!
//! A dotted path walks objects and, through an array, every element; the values it reaches
//! are flattened (nested arrays included). A path that reaches nothing is absent; a path that
//! reaches an empty array is present with no values.

use crate::value::{JsonArgs, JsonValue};
use serde_json::{Map, Value};

/// Collects the values `path` yields from `args` into `out`; returns false when it is absent.
///
/// # Example
///
/// ```
/// let args = serde_json::json!({"opts": [{"cwd": "/a"}, {"cwd": "/b"}]});
/// let (mut out, path) = (Vec::new(), ["opts".to_string(), "cwd".to_string()]);
/// assert!(toolgate::engine::args::collect(args.as_object().unwrap(), &path, &mut out));
/// assert_eq!(out, [&serde_json::json!("/a"), &serde_json::json!("/b")]);
/// assert!(!toolgate::engine::args::collect(args.as_object().unwrap(), &["x".into()], &mut out));
/// ```
pub fn collect<'a>(
    args: &'a Map<String, Value>,
    path: &[String],
    out: &mut Vec<&'a Value>,
) -> bool {
    out.clear();
    visit(args, path, &mut |v| out.push(v))
}

/// Calls `f` on each value `path` yields from `args`, in order, without allocating; returns
/// false when the path is absent (then `f` was not called).
///
/// # Example
///
/// ```
/// let args = serde_json::json!({"p": [["a"], "b", []]});
/// let mut seen = Vec::new();
/// assert!(toolgate::engine::args::visit(args.as_object().unwrap(), &["p".into()], &mut |v| seen.push(v.clone())));
/// assert_eq!(seen, [serde_json::json!("a"), serde_json::json!("b")]);
/// ```
pub fn visit<'a, A: JsonArgs<'a>>(args: A, path: &[String], f: &mut impl FnMut(A::Value)) -> bool {
    let Some((first, rest)) = path.split_first() else {
        return false;
    };
    args.arg(first).is_some_and(|root| walk(root, rest, f))
}

/// The value under `key`.
///
/// # Example
///
/// ```
/// let args = serde_json::json!({"path": "/a", "command": "ls"});
/// let args = args.as_object().unwrap();
/// assert_eq!(toolgate::engine::args::get(args, "command"), Some(&serde_json::json!("ls")));
/// assert_eq!(toolgate::engine::args::get(args, "cwd"), None);
/// ```
#[inline]
pub fn get<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    crate::value::get(args, key)
}

/// Follows `rest` from `v`; true when some value was reached at the end of the path.
fn walk<'a, V: JsonValue<'a>>(v: V, rest: &[String], f: &mut impl FnMut(V)) -> bool {
    let Some((key, more)) = rest.split_first() else {
        flatten(v, f);
        return true;
    };
    match v.items() {
        Some(items) => items.fold(false, |reached, item| walk(item, rest, f) | reached),
        None => v.member(key).is_some_and(|x| walk(x, more, f)),
    }
}

fn flatten<'a, V: JsonValue<'a>>(v: V, f: &mut impl FnMut(V)) {
    match v.items() {
        Some(items) => items.for_each(|i| flatten(i, f)),
        None => f(v),
    }
}

#[cfg(test)]
mod tests {
    use super::collect;
    use serde_json::json;

    fn get(args: serde_json::Value, path: &str) -> Option<Vec<serde_json::Value>> {
        let m = args.as_object().unwrap().clone();
        let p: Vec<String> = path.split('.').map(String::from).collect();
        let mut out = Vec::new();
        collect(&m, &p, &mut out).then(|| out.into_iter().cloned().collect())
    }

    #[test]
    fn walks_objects_and_arrays() {
        let args = json!({"opts": [{"cwd": "/a"}, {"cwd": "/etc"}, {"x": 1}, 3]});
        assert_eq!(
            get(args, "opts.cwd"),
            Some(vec![json!("/a"), json!("/etc")])
        );
        assert_eq!(
            get(json!({"p": [["a"], "b", []]}), "p"),
            Some(vec![json!("a"), json!("b")])
        );
        assert_eq!(get(json!({"p": []}), "p"), Some(vec![]));
        assert_eq!(get(json!({"p": null}), "p"), Some(vec![json!(null)]));
    }

    #[test]
    fn a_path_that_yields_nothing_is_absent() {
        assert_eq!(get(json!({}), "p"), None);
        assert_eq!(get(json!({"opts": [{"x": 1}]}), "opts.cwd"), None);
        assert_eq!(get(json!({"opts": "str"}), "opts.cwd"), None);
        assert_eq!(get(json!({"opts": []}), "opts.cwd"), None);
    }

    proptest::proptest! {
        /// `get` answers as the map's own lookup, for objects below and above the scan limit
        /// (whichever map type serde_json was built with).
        #[test]
        fn get_agrees_with_the_map(
            keys in proptest::collection::vec("[a-c]{0,3}", 0..20),
            key in "[a-c]{0,3}",
        ) {
            let m: serde_json::Map<String, serde_json::Value> =
                keys.iter().enumerate().map(|(i, k)| (k.clone(), json!(i))).collect();
            proptest::prop_assert_eq!(super::get(&m, &key), m.get(&key));
        }
    }
}
