//! A request's values as a flat list with one text buffer, read through
//! [`JsonValue`](crate::value::JsonValue): what [`RequestReader`](super::RequestReader) builds
//! and the engine decides on, without an owned value per string.

use crate::value::{JsonArgs, JsonKind, JsonValue};

/// A span of the tree's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    pub start: u32,
    pub len: u32,
}

impl Span {
    pub const NONE: Span = Span {
        start: u32::MAX,
        len: 0,
    };
}

/// What a node holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Kind {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(Span),
    Array,
    Object,
}

/// One value: its kind, its key when it is an object member, and the index just past its
/// subtree (its next sibling).
#[derive(Debug, Clone, Copy)]
pub(super) struct Node {
    pub kind: Kind,
    pub key: Span,
    pub end: u32,
}

/// The values of one request, in text order (a container's values follow it, up to its
/// `end`), with every string and key in one buffer.
#[derive(Debug, Default)]
pub(super) struct Tree {
    pub nodes: Vec<Node>,
    pub text: String,
}

impl Tree {
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.text.clear();
    }

    pub fn str(&self, s: Span) -> &str {
        let start = s.start as usize;
        self.text.get(start..start + s.len as usize).unwrap_or("")
    }

    /// Appends `s` to the text and returns its span.
    pub fn push_str(&mut self, s: &str) -> Span {
        let start = self.text.len() as u32;
        self.text.push_str(s);
        Span {
            start,
            len: s.len() as u32,
        }
    }

    pub fn at(&self, i: u32) -> At<'_> {
        At { tree: self, i }
    }
}

/// What a handle past the end reads as (none is ever made).
static NULL: Node = Node {
    kind: Kind::Null,
    key: Span::NONE,
    end: 0,
};

/// A value of a request read by [`RequestReader`](super::RequestReader).
#[derive(Debug, Clone, Copy)]
pub struct At<'t> {
    tree: &'t Tree,
    i: u32,
}

impl<'t> At<'t> {
    fn node(self) -> &'t Node {
        // Handles are made only for nodes of the tree.
        self.tree.nodes.get(self.i as usize).unwrap_or(&NULL)
    }

    /// The members of an object or the elements of an array, in order.
    pub(super) fn children(self) -> Children<'t> {
        let n = self.node();
        let container = matches!(n.kind, Kind::Array | Kind::Object);
        Children {
            tree: self.tree,
            next: self.i + 1,
            end: if container { n.end } else { self.i + 1 },
        }
    }

    /// The key of an object member.
    pub(super) fn key(self) -> &'t str {
        let k = self.node().key;
        if k == Span::NONE {
            ""
        } else {
            self.tree.str(k)
        }
    }
}

/// The values directly inside a container.
#[derive(Debug, Clone)]
pub struct Children<'t> {
    tree: &'t Tree,
    next: u32,
    end: u32,
}

impl<'t> Iterator for Children<'t> {
    type Item = At<'t>;

    fn next(&mut self) -> Option<At<'t>> {
        if self.next >= self.end || self.next as usize >= self.tree.nodes.len() {
            return None;
        }
        let at = self.tree.at(self.next);
        self.next = at.node().end;
        Some(at)
    }
}

impl<'t> JsonValue<'t> for At<'t> {
    type Items = Children<'t>;

    fn kind(self) -> JsonKind {
        match self.node().kind {
            Kind::Null => JsonKind::Null,
            Kind::Bool(_) => JsonKind::Bool,
            Kind::Int(_) | Kind::UInt(_) | Kind::Float(_) => JsonKind::Number,
            Kind::Str(_) => JsonKind::String,
            Kind::Array => JsonKind::Array,
            Kind::Object => JsonKind::Object,
        }
    }

    fn as_str(self) -> Option<&'t str> {
        match self.node().kind {
            Kind::Str(s) => Some(self.tree.str(s)),
            _ => None,
        }
    }

    fn as_f64(self) -> Option<f64> {
        // As serde_json's `Number::as_f64` reads each representation.
        match self.node().kind {
            Kind::Int(i) => Some(i as f64),
            Kind::UInt(u) => Some(u as f64),
            Kind::Float(f) => Some(f),
            _ => None,
        }
    }

    fn is_integer(self) -> bool {
        match self.node().kind {
            Kind::Int(_) | Kind::UInt(_) => true,
            Kind::Float(f) => f.is_finite() && f.fract() == 0.0,
            _ => false,
        }
    }

    fn items(self) -> Option<Children<'t>> {
        matches!(self.node().kind, Kind::Array).then(|| self.children())
    }

    fn member(self, key: &str) -> Option<At<'t>> {
        if !matches!(self.node().kind, Kind::Object) {
            return None;
        }
        self.children().find(|c| c.key() == key)
    }
}

/// A request's arguments as [`RequestReader`](super::RequestReader) read them (none when the
/// request has no `args`).
#[derive(Debug, Clone, Copy)]
pub struct Args<'t>(pub(super) Option<At<'t>>);

impl<'t> JsonArgs<'t> for Args<'t> {
    type Value = At<'t>;

    fn arg(self, key: &str) -> Option<At<'t>> {
        self.0.and_then(|a| a.member(key))
    }
}
