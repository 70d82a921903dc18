//! Where a refused value sits in a request, written one way for every host: `args.paths[2]`,
//! `args["a.b"]`, and for a very deep value its first and last steps with its depth.

use std::fmt;

/// One step from a container to a value inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// An object member.
    Key(String),
    /// An array element.
    Index(usize),
}

/// A path from the request object to a value, as a host shows it in a `bad_request` message.
///
/// The first step is a top-level field, written bare (`args`); a later key is `.key` when it is
/// made of ASCII letters, digits, `_` and `-`, otherwise `["key"]` with JSON escapes; an index
/// is `[i]`. A path of more than [`ValuePath::SHOWN`] steps keeps its first six and last three
/// and says how deep it is.
///
/// # Example
///
/// ```
/// use toolgate::host::request::{Step, ValuePath};
/// let p = ValuePath::new(vec![Step::Key("args".into()), Step::Key("paths".into()), Step::Index(2)]);
/// assert_eq!(p.to_string(), "args.paths[2]");
/// let q = ValuePath::new(vec![Step::Key("args".into()), Step::Key("a.b\"".into())]);
/// assert_eq!(q.to_string(), r#"args["a.b\""]"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ValuePath {
    steps: Vec<Step>,
}

impl ValuePath {
    /// The most steps written out in full.
    pub const SHOWN: usize = 12;

    /// The path of these steps, outermost first.
    pub fn new(steps: Vec<Step>) -> ValuePath {
        ValuePath { steps }
    }

    /// The steps, outermost first.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// True for the request object itself.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

/// True when a key can be written `.key`.
fn plain(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn write_step(f: &mut fmt::Formatter<'_>, step: &Step, first: bool) -> fmt::Result {
    match step {
        Step::Key(k) if first && plain(k) => f.write_str(k),
        Step::Key(k) if plain(k) => write!(f, ".{k}"),
        Step::Key(k) => {
            let quoted = serde_json::to_string(k).map_err(|_| fmt::Error)?;
            write!(f, "[{quoted}]")
        }
        Step::Index(i) => write!(f, "[{i}]"),
    }
}

impl fmt::Display for ValuePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.steps.len();
        if n <= ValuePath::SHOWN {
            for (i, s) in self.steps.iter().enumerate() {
                write_step(f, s, i == 0)?;
            }
            return Ok(());
        }
        for (i, s) in self.steps.iter().take(6).enumerate() {
            write_step(f, s, i == 0)?;
        }
        f.write_str("...")?;
        for s in self.steps.iter().skip(n - 3) {
            write_step(f, s, false)?;
        }
        write!(f, " ({n} levels deep)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_paths_keep_their_ends_and_depth() {
        let mut steps = vec![Step::Key("args".into()), Step::Key("x".into())];
        steps.extend((0..20).map(Step::Index));
        let p = ValuePath::new(steps).to_string();
        assert_eq!(p, "args.x[0][1][2][3]...[17][18][19] (22 levels deep)");
    }

    #[test]
    fn odd_keys_are_quoted_with_json_escapes() {
        let p = ValuePath::new(vec![
            Step::Key("meta".into()),
            Step::Key(String::new()),
            Step::Key("new\nline".into()),
            Step::Key("ok_key-1".into()),
        ]);
        assert_eq!(p.to_string(), r#"meta[""]["new\nline"].ok_key-1"#);
        let top = ValuePath::new(vec![Step::Key("a b".into())]);
        assert_eq!(top.to_string(), r#"["a b"]"#);
    }
}
