//! Reading an argument path out of a call's arguments.
//!
//! A dotted path walks objects and, through an array, every element; the values it reaches
//! are flattened (nested arrays included). A path that reaches nothing is absent; a path that
//! reaches an empty array is present with no values.

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
    let Some((first, rest)) = path.split_first() else {
        return false;
    };
    let Some(root) = args.get(first) else {
        return false;
    };
    let mut current = vec![root];
    let mut next = Vec::new();
    for key in rest {
        next.clear();
        for v in &current {
            descend(v, key, &mut next);
        }
        if next.is_empty() {
            return false;
        }
        std::mem::swap(&mut current, &mut next);
    }
    for v in current {
        flatten(v, out);
    }
    true
}

fn descend<'a>(v: &'a Value, key: &str, out: &mut Vec<&'a Value>) {
    match v {
        Value::Object(m) => {
            if let Some(x) = m.get(key) {
                out.push(x);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| descend(i, key, out)),
        _ => {}
    }
}

fn flatten<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
    match v {
        Value::Array(items) => items.iter().for_each(|i| flatten(i, out)),
        other => out.push(other),
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
}
