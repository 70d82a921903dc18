//! The compiled rules: where each is written and the message a decision it makes carries.

use super::csr::TextTable;
use super::ids::IdOverflow;
use super::{check, Invalid};
use crate::syntax::ast::Effect;
use serde::de::{DeserializeSeed, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Where the deciding rule is.
///
/// # Example
///
/// ```
/// let engine = toolgate::load::engine_from_str("p.policy", "tool t\nagent a {\n  allow t\n}").unwrap();
/// let rule = engine.decide(&toolgate::Request::new("a", "t")).rule.unwrap();
/// assert_eq!((&*rule.agent, rule.line, rule.column), ("a", 3, 3));
/// assert_eq!(rule.to_string(), "allow t (p.policy:3:3)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleRef {
    /// The agent the rule belongs to (shared by the agent's rules).
    pub agent: Arc<str>,
    /// `allow` or `deny`.
    pub effect: Effect,
    /// The target as written (shared by neighbouring rules with the same target).
    pub target: Arc<str>,
    /// The file it is in (shared by the file's rules).
    pub file: Arc<str>,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl std::fmt::Display for RuleRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} ({}:{}:{})",
            self.effect.as_str(),
            self.target,
            self.file,
            self.line,
            self.column
        )
    }
}

/// One compiled rule, read from the [`Rules`] table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rule<'p> {
    pub info: &'p RuleRef,
    pub message: &'p str,
}

/// Every rule of the policy, in source order (indexed by [`super::ids::RuleId`]).
///
/// The messages sit end to end in one string, and the rules of one agent, or of one file,
/// share its name: a rule costs one allocation (its target text), so a bundle of 10,000
/// rules loads in milliseconds. Bundles store the locations, then the messages and where
/// each ends.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rules {
    info: Vec<RuleRef>,
    messages: TextTable,
}

impl Rules {
    /// The table of `rules`, each with its message.
    pub(crate) fn new(rules: Vec<(RuleRef, String)>) -> Result<Rules, IdOverflow> {
        let messages = TextTable::from_strs(rules.iter().map(|(_, m)| m))?;
        // A table of its own size (collecting in place would keep the room of the pairs).
        let mut info = Vec::with_capacity(rules.len());
        info.extend(rules.into_iter().map(|(r, _)| r));
        Ok(Rules { info, messages })
    }

    /// Number of rules.
    pub(crate) fn len(&self) -> usize {
        self.info.len()
    }

    /// Rule `i`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<Rule<'_>> {
        Some(Rule {
            info: self.info.get(i)?,
            message: self.messages.get(i)?,
        })
    }

    /// Every rule, in source order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Rule<'_>> {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// Checks that every rule has its message.
    pub(crate) fn validate(&self) -> Result<(), Invalid> {
        check(
            self.messages.len() == self.info.len() && self.messages.is_valid(),
            "rule messages are inconsistent",
        )
    }
}

impl Serialize for Rules {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("Rules", 2)?;
        s.serialize_field("info", &self.info)?;
        s.serialize_field("messages", &self.messages)?;
        s.end()
    }
}

/// The fields of a stored rule table and of a stored [`RuleRef`], in encoding order.
const RULES_FIELDS: &[&str] = &["info", "messages"];
const RULE_FIELDS: &[&str] = &["agent", "effect", "target", "file", "line", "column"];

impl<'de> Deserialize<'de> for Rules {
    /// Reads a table as bundles store it (a sequence of fields, as postcard gives them),
    /// sharing one string among consecutive rules of the same agent or file.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Rules, D::Error> {
        deserializer.deserialize_struct("Rules", RULES_FIELDS, RulesVisitor)
    }
}

/// Decodes a [`Rules`] table.
struct RulesVisitor;

impl<'de> Visitor<'de> for RulesVisitor {
    type Value = Rules;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a rule table")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Rules, A::Error> {
        let missing = |i| serde::de::Error::invalid_length(i, &"a rule table of two fields");
        let info = seq
            .next_element_seed(Locations)?
            .ok_or_else(|| missing(0))?;
        let messages = seq.next_element()?.ok_or_else(|| missing(1))?;
        Ok(Rules { info, messages })
    }
}

/// Decodes the rules' locations, sharing names between neighbours.
struct Locations;

impl<'de> DeserializeSeed<'de> for Locations {
    type Value = Vec<RuleRef>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Vec<RuleRef>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Locations {
    type Value = Vec<RuleRef>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a sequence of rule locations")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<RuleRef>, A::Error> {
        // The declared length is only a hint (a damaged bundle may claim anything).
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        let (mut agent, mut target, mut file) = (None, None, None);
        while let Some(rule) = seq.next_element_seed(Location {
            agent: &mut agent,
            target: &mut target,
            file: &mut file,
        })? {
            out.push(rule);
        }
        Ok(out)
    }
}

/// Decodes one [`RuleRef`], reusing the previous rule's agent, target and file names when
/// equal.
struct Location<'a> {
    agent: &'a mut Option<Arc<str>>,
    target: &'a mut Option<Arc<str>>,
    file: &'a mut Option<Arc<str>>,
}

impl<'de> DeserializeSeed<'de> for Location<'_> {
    type Value = RuleRef;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<RuleRef, D::Error> {
        d.deserialize_struct("RuleRef", RULE_FIELDS, self)
    }
}

impl<'de> Visitor<'de> for Location<'_> {
    type Value = RuleRef;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a rule location")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RuleRef, A::Error> {
        let missing = |i| serde::de::Error::invalid_length(i, &"a rule location of six fields");
        let agent = seq
            .next_element_seed(Shared(self.agent))?
            .ok_or_else(|| missing(0))?;
        let effect = seq.next_element()?.ok_or_else(|| missing(1))?;
        let target = seq
            .next_element_seed(Shared(self.target))?
            .ok_or_else(|| missing(2))?;
        let file = seq
            .next_element_seed(Shared(self.file))?
            .ok_or_else(|| missing(3))?;
        let line = seq.next_element()?.ok_or_else(|| missing(4))?;
        let column = seq.next_element()?.ok_or_else(|| missing(5))?;
        Ok(RuleRef {
            agent,
            effect,
            target,
            file,
            line,
            column,
        })
    }
}

/// Decodes a string as the one held (no allocation when equal), or as a new shared string
/// that is then held.
struct Shared<'a>(&'a mut Option<Arc<str>>);

impl<'de> DeserializeSeed<'de> for Shared<'_> {
    type Value = Arc<str>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Arc<str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Shared<'_> {
    type Value = Arc<str>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Arc<str>, E> {
        Ok(shared(self.0, v))
    }
}

/// Shares `name` with the rule before when equal (what a decoded table does too).
pub(crate) fn shared(held: &mut Option<Arc<str>>, name: &str) -> Arc<str> {
    match held {
        Some(h) if **h == *name => Arc::clone(h),
        _ => Arc::clone(held.insert(Arc::from(name))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(agent: &str, file: &str, line: usize) -> RuleRef {
        RuleRef {
            agent: agent.into(),
            effect: Effect::Allow,
            target: "t".into(),
            file: file.into(),
            line,
            column: 3,
        }
    }

    #[test]
    fn a_table_round_trips_and_shares_names() {
        let rules = Rules::new(vec![
            (rule("a", "p.policy", 1), "first".into()),
            (rule("a", "p.policy", 2), "".into()),
            (rule("b", "p.policy", 3), "thïrd".into()),
        ])
        .unwrap();
        let bytes = postcard::to_allocvec(&rules).unwrap();
        let back: Rules = postcard::from_bytes(&bytes).unwrap();
        back.validate().unwrap();
        let got: Vec<(&RuleRef, &str)> = back.iter().map(|r| (r.info, r.message)).collect();
        let want: Vec<(&RuleRef, &str)> = rules.iter().map(|r| (r.info, r.message)).collect();
        assert_eq!(got, want);
        assert_eq!(want[2].1, "thïrd");
        let (first, second, third) = (&back.info[0], &back.info[1], &back.info[2]);
        assert!(Arc::ptr_eq(&first.agent, &second.agent));
        assert!(Arc::ptr_eq(&first.target, &third.target));
        assert!(Arc::ptr_eq(&first.file, &third.file));
        assert!(!Arc::ptr_eq(&second.agent, &third.agent));
        // A table with a message too few is refused.
        let short = Rules {
            messages: TextTable::from_strs(["first", ""]).unwrap(),
            ..back.clone()
        };
        assert!(short.validate().is_err());
    }
}
