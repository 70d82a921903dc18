//! The decision shapes of one engine, numbered: everything of a decision but the request's
//! `tool_use_id` (and an explanation, which a numbered decision never has).
//!
//! `decide` hands JS a shape's number instead of the decision's texts: `toolgate.js` keeps
//! each shape as a template object, fetched once, and copies it into a fresh decision with an
//! object literal, which costs a fraction of creating the same strings through Node-API.
//!
//! The table is bounded by the program, never by the traffic: only decisions whose texts come
//! from the program are numbered (a rule's message, a default's, ``no rule of agent `a` allows
//! t`` for a declared agent and tool, a declared argument's or permission's name). A decision
//! whose text quotes the request (`bad_request`, `unknown_agent`, `unknown_tool`, a permission
//! the request listed) is not numbered and is built in full, at the same cost every time.
//!
//! Most decisions borrow every text from the engine, so they are first looked up by where
//! those texts are ([`Place`]): a few words to hash and compare instead of the texts. The
//! engine never changes, so the same place always holds the same texts.

use rustc_hash::{FxHashMap, FxHasher};
use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use toolgate::{Decision, Reason};

/// The numbered shapes of one engine's decisions.
#[derive(Default)]
pub struct Shapes {
    /// Shape numbers by the place of their texts, for decisions borrowing all of them.
    by_place: FxHashMap<Place, u32>,
    /// Shape numbers by the hash of their fields (collisions share a list).
    by_fields: FxHashMap<u64, Vec<u32>>,
    /// The numbers of shapes less their message (see [`Shapes::quoting`]), by effect and
    /// reason.
    by_reason: FxHashMap<(toolgate::Effect, Reason), u32>,
    /// The shapes, by number, each a decision without `tool_use_id` and explanation.
    entries: Vec<Decision<'static>>,
}

/// Where a decision's texts are (address and length), when it borrows all of them from the
/// engine: equal places mean equal texts.
#[derive(PartialEq, Eq, Hash)]
struct Place {
    reason: Reason,
    message: (usize, usize),
    permission: (usize, usize),
    argument: (usize, usize),
    rule: usize,
    policy_hash: (usize, usize),
}

impl Place {
    /// The place of `d`'s texts; `None` when it owns one of them.
    fn of(d: &Decision<'_>) -> Option<Place> {
        #[allow(
            clippy::ptr_arg,
            reason = "whether the text is borrowed is what is asked, not only its content"
        )]
        fn text(t: &Cow<'_, str>) -> Option<(usize, usize)> {
            match t {
                Cow::Borrowed(s) => Some((s.as_ptr() as usize, s.len())),
                Cow::Owned(_) => None,
            }
        }
        fn optional(t: &Option<Cow<'_, str>>) -> Option<(usize, usize)> {
            t.as_ref().map_or(Some((0, 0)), text)
        }
        if d.explanation.is_some() {
            return None;
        }
        Some(Place {
            reason: d.reason,
            message: text(&d.message)?,
            permission: optional(&d.permission)?,
            argument: optional(&d.argument)?,
            rule: match &d.rule {
                None => 0,
                Some(Cow::Borrowed(r)) => std::ptr::from_ref(*r) as usize,
                Some(Cow::Owned(_)) => return None,
            },
            policy_hash: text(&d.policy_hash)?,
        })
    }
}

impl Shapes {
    /// The number of `d`'s shape, numbered now when it is new; `None` when a text of `d`
    /// quotes the request (see the module's comment) or it has an explanation.
    pub fn number(&mut self, d: &Decision<'_>) -> Option<u32> {
        if !of_the_program(d) {
            return None;
        }
        let place = Place::of(d);
        if let Some(&n) = place.as_ref().and_then(|p| self.by_place.get(p)) {
            return Some(n);
        }
        let mut h = FxHasher::default();
        hash_shape(d, &mut h);
        let key = h.finish();
        let found = self.by_fields.get(&key).and_then(|numbers| {
            numbers.iter().copied().find(|&n| {
                self.entries
                    .get(n as usize)
                    .is_some_and(|e| same_shape(e, d))
            })
        });
        let n = match found {
            Some(n) => n,
            None => {
                let n = u32::try_from(self.entries.len()).ok()?;
                let mut entry = d.clone().into_owned();
                entry.tool_use_id = None;
                self.entries.push(entry);
                self.by_fields.entry(key).or_default().push(n);
                n
            }
        };
        if let Some(p) = place {
            self.by_place.insert(p, n);
        }
        Some(n)
    }

    /// For a decision that is not numbered because its message quotes the request and that
    /// has nothing else of its own (no rule, argument or permission): the number of its shape
    /// less the message (a template whose message is empty), numbered now when new. These are
    /// as many as the effects and reasons, so `toolgate.js` copies such a decision from a
    /// template too and takes the message from the addon.
    pub fn quoting(&mut self, d: &Decision<'_>) -> Option<u32> {
        if d.rule.is_some()
            || d.argument.is_some()
            || d.permission.is_some()
            || d.explanation.is_some()
        {
            return None;
        }
        let key = (d.decision, d.reason);
        if let Some(&n) = self.by_reason.get(&key) {
            return Some(n);
        }
        let n = u32::try_from(self.entries.len()).ok()?;
        let mut entry = d.clone().into_owned();
        entry.tool_use_id = None;
        entry.message = Cow::Borrowed("");
        self.entries.push(entry);
        self.by_reason.insert(key, n);
        Some(n)
    }

    /// Shape `n`, as a decision with no `tool_use_id`; `None` for a number never given.
    pub fn get(&self, n: u32) -> Option<&Decision<'static>> {
        self.entries.get(n as usize)
    }

    /// How many shapes are numbered.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

/// Whether every text of `d` comes from the program: its reason does not quote the request,
/// and a missing permission is a declared one (not one the request listed).
fn of_the_program(d: &Decision<'_>) -> bool {
    !matches!(
        d.reason,
        Reason::BadRequest | Reason::UnknownAgent | Reason::UnknownTool
    ) && d.explanation.is_none()
        && !matches!(d.permission, Some(Cow::Owned(_)))
}

/// Feeds the fields that make a shape into `h`.
fn hash_shape(d: &Decision<'_>, h: &mut FxHasher) {
    d.decision.as_str().hash(h);
    d.reason.as_str().hash(h);
    d.permission.as_deref().hash(h);
    d.argument.as_deref().hash(h);
    d.message.hash(h);
    if let Some(r) = d.rule.as_deref() {
        r.line.hash(h);
        r.column.hash(h);
        r.file.hash(h);
        r.target.hash(h);
        r.agent.hash(h);
    }
}

/// Whether `d` has the shape `entry` (all but `tool_use_id` and explanation are equal).
fn same_shape(entry: &Decision<'_>, d: &Decision<'_>) -> bool {
    entry.decision == d.decision
        && entry.reason == d.reason
        && entry.permission == d.permission
        && entry.argument == d.argument
        && entry.message == d.message
        && entry.rule == d.rule
        && entry.policy_hash == d.policy_hash
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> toolgate::Engine {
        toolgate::load::engine_from_str(
            "t.policy",
            "tool t(p?)\nagent a {\n  allow t where p == \"x\"\n  deny t where p == \"y\"\n}\n",
        )
        .unwrap()
    }

    fn request(json: &str) -> toolgate::Request {
        toolgate::Request::from_json(json).unwrap()
    }

    #[test]
    fn equal_shapes_share_a_number_and_ids_do_not_count() {
        let e = engine();
        let mut shapes = Shapes::default();
        let allow = request(r#"{"agent":"a","tool":"t","args":{"p":"x"},"tool_use_id":"1"}"#);
        let allow2 = request(r#"{"agent":"a","tool":"t","args":{"p":"x"}}"#);
        let deny = request(r#"{"agent":"a","tool":"t","args":{"p":"y"}}"#);
        let a = shapes.number(&e.decide(&allow)).unwrap();
        assert_eq!(shapes.number(&e.decide(&allow2)), Some(a));
        let d = shapes.number(&e.decide(&deny)).unwrap();
        assert_ne!(a, d);
        let mut want = e.decide(&deny).into_owned();
        want.tool_use_id = None;
        assert_eq!(shapes.get(d), Some(&want));
        assert_eq!(shapes.get(a).unwrap().tool_use_id, None);
        assert!(shapes.get(d + 1).is_none());
    }

    #[test]
    fn decisions_quoting_the_request_are_not_numbered() {
        let e = engine();
        let mut shapes = Shapes::default();
        for i in 0..10_000 {
            let req = toolgate::Request::new("a", format!("u{i}"));
            assert_eq!(shapes.number(&e.decide(&req)), None);
            let bad = e.bad_request(format!("bad request: {i}"), None);
            assert_eq!(shapes.number(&bad), None);
        }
        let unknown_agent = e.decide(&toolgate::Request::new("nobody", "t"));
        assert_eq!(shapes.number(&unknown_agent), None);
        assert_eq!(shapes.len(), 0);
        // Less their message, they are as many as their reasons.
        let q = shapes.quoting(&unknown_agent).unwrap();
        for i in 0..100 {
            let d = e.decide(&toolgate::Request::new(format!("n{i}"), "t"));
            assert_eq!(shapes.quoting(&d), Some(q));
            assert_eq!(
                shapes.quoting(&e.bad_request(format!("bad request: {i}"), None)),
                Some(q + 1)
            );
        }
        assert_eq!(shapes.get(q).unwrap().message, "");
        assert_eq!(shapes.len(), 2);
        // A text the engine made for a declared agent and tool is numbered, owned or not.
        let no_rule = e.decide(&request(r#"{"agent":"a","tool":"t"}"#));
        let n = shapes.number(&no_rule).unwrap();
        assert_eq!(shapes.number(&no_rule.clone().into_owned()), Some(n));
        assert_eq!(shapes.get(n).unwrap().message, no_rule.message);
    }

    #[test]
    fn the_table_is_bounded_by_the_program() {
        // Every request of a program with N rules lands on at most a few shapes per rule.
        let n = 300;
        let mut src = String::new();
        for i in 0..n {
            src += &format!("tool t{i}(path)\n");
        }
        src += "agent a {\n";
        for i in 0..n {
            src += &format!("  allow t{i} where path matches \"/d{i}/**\"\n");
        }
        src += "}\n";
        let e = toolgate::load::engine_from_str("n.policy", &src).unwrap();
        let mut shapes = Shapes::default();
        for round in 0..3 {
            for i in 0..n {
                for path in [format!("/d{i}/x{round}"), format!("/other/{round}")] {
                    let req = toolgate::Request::new("a", format!("t{i}"))
                        .args(serde_json::json!({ "path": path }));
                    assert!(shapes.number(&e.decide(&req)).is_some());
                }
            }
        }
        // One shape per allow rule, one per tool no rule allowed the call to.
        assert_eq!(shapes.len(), 2 * n);
    }
}
