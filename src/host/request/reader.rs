//! [`RequestReader`]: a host pushes its request value into it, value by value, and it applies
//! the request rules every host shares (exactly JSON, the size and depth limits, distinct keys,
//! the top-level fields' types), then hands the engine the values it read.

use super::path::{Step, ValuePath};
use super::tree::{Args, At, Kind, Node, Span, Tree};
use super::FIELDS;
use crate::engine::json::scalar_len;
use crate::engine::request::{BadRequest, MAX_DEPTH, MAX_REQUEST_BYTES};
use crate::engine::{Decision, Engine, RequestRef};
use crate::value::{JsonKind, JsonValue};
use std::collections::HashSet;

/// Past this many keys, an object's keys are checked for duplicates with a hash set.
const SCAN_KEYS: usize = 16;

/// An open array or object.
#[derive(Debug)]
struct Frame {
    /// The container's node.
    node: u32,
    object: bool,
    /// Values placed in it so far.
    count: usize,
    /// An object's key waiting for its value.
    key: Option<Span>,
    /// Where this object's keys start in `keys`.
    keys_from: usize,
    /// The keys of a large object, for duplicate checks.
    seen: Option<HashSet<String>>,
}

/// The marker of a refused request: the reader holds the reason, and
/// [`RequestReader::decide`] answers `bad_request` with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused;

/// Reads one request from a host's own values, into buffers kept from one request to the next.
///
/// The host walks its value and reports each part: [`null`](Self::null), [`bool`](Self::bool),
/// numbers, [`str`](Self::str), [`begin_array`](Self::begin_array) ...
/// [`end_array`](Self::end_array), [`begin_object`](Self::begin_object), then per member
/// [`key`](Self::key) and its value, then [`end_object`](Self::end_object). Anything the host
/// finds with no JSON form (a set, a function, a lone surrogate) it reports with
/// [`refuse`](Self::refuse). Every call returns `Err(Refused)` once the request is refused, so
/// a walk can stop at the first `?`.
///
/// The rules, the same for every host and the same as the CLI's request line:
/// - the request's size as compact JSON (`serde_json::to_string`) is at most
///   [`MAX_REQUEST_BYTES`], counted as it is read;
/// - arrays and objects nest at most [`MAX_DEPTH`] deep, the request object included;
/// - numbers are finite; an object's keys are distinct;
/// - the top-level value is an object whose fields have the CLI's types, checked with the
///   CLI's messages (`Request::from_json`).
///
/// A refused value's message names where it is ([`ValuePath`]): `` `args.paths[2]` is ... ``.
///
/// # Example
///
/// ```
/// use toolgate::host::request::RequestReader;
/// let engine = toolgate::load::engine_from_str("p.policy", "tool t(p)\nagent a { allow t where p == \"x\" }").unwrap();
/// let mut r = RequestReader::new();
/// let walk = |r: &mut RequestReader, p: f64| -> Result<(), toolgate::host::request::Refused> {
///     r.begin_object()?;
///     r.key("agent")?; r.str("a")?;
///     r.key("tool")?; r.str("t")?;
///     r.key("args")?; r.begin_object()?; r.key("p")?; r.f64(p)?; r.end_object()?;
///     r.end_object()
/// };
/// r.clear();
/// let _ = walk(&mut r, 1.0);
/// assert_eq!(r.decide(&engine, false).reason.as_str(), "no_matching_rule");
/// r.clear();
/// let _ = walk(&mut r, f64::NAN);
/// let d = r.decide(&engine, false);
/// assert_eq!(d.reason.as_str(), "bad_request");
/// assert_eq!(d.message, "bad request: `args.p` is NaN, which is not a JSON number");
/// ```
#[derive(Debug, Default)]
pub struct RequestReader {
    tree: Tree,
    frames: Vec<Frame>,
    /// Every open object's keys, innermost last.
    keys: Vec<Span>,
    bytes: usize,
    /// Why the request was refused, once it is.
    refusal: Option<String>,
    permissions: Vec<String>,
}

impl RequestReader {
    /// An empty reader.
    pub fn new() -> RequestReader {
        RequestReader::default()
    }

    /// Forgets the last request, keeping the buffers.
    pub fn clear(&mut self) {
        self.tree.clear();
        self.frames.clear();
        self.keys.clear();
        self.bytes = 0;
        self.refusal = None;
        self.permissions.clear();
    }

    /// Whether the request read so far is refused.
    pub fn is_refused(&self) -> bool {
        self.refusal.is_some()
    }

    /// The path of the value about to be read (`next`) or of the innermost open container.
    fn path(&self, next: bool) -> ValuePath {
        let mut steps = Vec::with_capacity(self.frames.len() + 1);
        let open = self.frames.len();
        for (i, f) in self.frames.iter().enumerate() {
            let last = i + 1 == open;
            if last && !next {
                break;
            }
            if f.object {
                if let Some(k) = f.key {
                    steps.push(Step::Key(self.tree.str(k).to_string()));
                }
            } else {
                // The element being read is the last placed one, except for the next value.
                let index = if last {
                    f.count
                } else {
                    f.count.saturating_sub(1)
                };
                steps.push(Step::Index(index));
            }
        }
        ValuePath::new(steps)
    }

    fn fail(&mut self, path: ValuePath, what: &str) -> Refused {
        if self.refusal.is_none() {
            self.refusal = Some(if path.is_empty() {
                format!("the request {what}")
            } else {
                format!("`{path}` {what}")
            });
        }
        Refused
    }

    /// Refuses the value about to be read, because `what` (`"is a `set`, which has no JSON
    /// form"`); the message names the value's path.
    pub fn refuse(&mut self, what: &str) -> Refused {
        let path = self.path(true);
        self.fail(path, what)
    }

    /// Refuses the innermost open object or array (a key that is not a string, say).
    pub fn refuse_container(&mut self, what: &str) -> Refused {
        let path = self.path(false);
        self.fail(path, what)
    }

    /// Refuses the whole request, because `message` (no path).
    pub fn refuse_request(&mut self, message: &str) -> Refused {
        if self.refusal.is_none() {
            self.refusal = Some(message.to_string());
        }
        Refused
    }

    fn add_bytes(&mut self, n: usize) -> Result<(), Refused> {
        self.bytes += n;
        if self.bytes > MAX_REQUEST_BYTES {
            return Err(self.refuse_request(&format!(
                "request is larger than the {MAX_REQUEST_BYTES}-byte limit as JSON"
            )));
        }
        Ok(())
    }

    /// Places a value of `len` bytes of JSON text: returns its key.
    fn place(&mut self, len: usize) -> Result<Span, Refused> {
        if self.refusal.is_some() {
            return Err(Refused);
        }
        let (key, comma) = match self.frames.last_mut() {
            None if self.tree.nodes.is_empty() => (Span::NONE, false),
            None => {
                return Err(self.refuse_request("the request holds more than one value"));
            }
            Some(f) if f.object => match f.key.take() {
                // The key and its colon were counted by `key`.
                Some(k) => {
                    f.key = Some(k);
                    (k, false)
                }
                None => return Err(self.refuse_request("an object member has no key")),
            },
            Some(f) => {
                f.count += 1;
                (Span::NONE, f.count > 1)
            }
        };
        self.add_bytes(len + usize::from(comma))?;
        Ok(key)
    }

    fn scalar(&mut self, kind: Kind, len: usize) -> Result<(), Refused> {
        let key = self.place(len)?;
        let end = self.tree.nodes.len() as u32 + 1;
        self.tree.nodes.push(Node { kind, key, end });
        Ok(())
    }

    /// A `null`.
    pub fn null(&mut self) -> Result<(), Refused> {
        self.scalar(Kind::Null, 4)
    }

    /// `true` or `false`.
    pub fn bool(&mut self, v: bool) -> Result<(), Refused> {
        self.scalar(Kind::Bool(v), if v { 4 } else { 5 })
    }

    /// A signed integer.
    pub fn i64(&mut self, v: i64) -> Result<(), Refused> {
        self.scalar(Kind::Int(v), scalar_len(&v))
    }

    /// An unsigned integer.
    pub fn u64(&mut self, v: u64) -> Result<(), Refused> {
        match i64::try_from(v) {
            // serde_json keeps a non-negative integer that fits `i64` as one; so does this.
            Ok(i) => self.i64(i),
            Err(_) => self.scalar(Kind::UInt(v), scalar_len(&v)),
        }
    }

    /// A float; NaN and the infinities are refused (JSON has no such numbers).
    pub fn f64(&mut self, v: f64) -> Result<(), Refused> {
        if !v.is_finite() {
            let what = if v.is_nan() {
                "is NaN, which is not a JSON number".to_string()
            } else {
                format!(
                    "is {}, which is not a JSON number",
                    if v > 0.0 { "Infinity" } else { "-Infinity" }
                )
            };
            return Err(self.refuse(&what));
        }
        self.scalar(Kind::Float(v), scalar_len(&v))
    }

    /// A string.
    pub fn str(&mut self, s: &str) -> Result<(), Refused> {
        let len = scalar_len(s);
        let key = self.place(len)?;
        let span = self.tree.push_str(s);
        let end = self.tree.nodes.len() as u32 + 1;
        self.tree.nodes.push(Node {
            kind: Kind::Str(span),
            key,
            end,
        });
        Ok(())
    }

    fn open(&mut self, object: bool) -> Result<(), Refused> {
        if self.refusal.is_some() {
            return Err(Refused);
        }
        if self.frames.len() + 1 > MAX_DEPTH {
            return Err(self.refuse(&format!(
                "nests deeper than {MAX_DEPTH} levels of arrays and objects (the request counts as one), the limit of request JSON"
            )));
        }
        let key = self.place(2)?;
        let node = self.tree.nodes.len() as u32;
        self.tree.nodes.push(Node {
            kind: if object { Kind::Object } else { Kind::Array },
            key,
            // Open: its values run to the end of the list until it is closed.
            end: u32::MAX,
        });
        self.frames.push(Frame {
            node,
            object,
            count: 0,
            key: None,
            keys_from: self.keys.len(),
            seen: None,
        });
        Ok(())
    }

    fn close(&mut self, object: bool) -> Result<(), Refused> {
        if self.refusal.is_some() {
            return Err(Refused);
        }
        match self.frames.last() {
            Some(f) if f.object == object => {}
            _ => return Err(self.refuse_request("a container was closed that is not open")),
        }
        let Some(f) = self.frames.pop() else {
            return Err(Refused);
        };
        if f.object {
            self.keys.truncate(f.keys_from);
        }
        let end = self.tree.nodes.len() as u32;
        if let Some(n) = self.tree.nodes.get_mut(f.node as usize) {
            n.end = end;
        }
        Ok(())
    }

    /// Opens an array; its elements follow, then [`end_array`](Self::end_array).
    pub fn begin_array(&mut self) -> Result<(), Refused> {
        self.open(false)
    }

    /// Closes the innermost array.
    pub fn end_array(&mut self) -> Result<(), Refused> {
        self.close(false)
    }

    /// Opens an object; its members follow ([`key`](Self::key), then the value), then
    /// [`end_object`](Self::end_object).
    pub fn begin_object(&mut self) -> Result<(), Refused> {
        self.open(true)
    }

    /// Closes the innermost object.
    pub fn end_object(&mut self) -> Result<(), Refused> {
        self.close(true)
    }

    /// The key of the next member of the innermost object; a key the object already has is
    /// refused.
    pub fn key(&mut self, k: &str) -> Result<(), Refused> {
        if self.refusal.is_some() {
            return Err(Refused);
        }
        let Some(f) = self.frames.last() else {
            return Err(self.refuse_request("a key outside an object"));
        };
        if !f.object {
            return Err(self.refuse_request("a key inside an array"));
        }
        let first = f.count == 0;
        let from = f.keys_from;
        let taken = match &f.seen {
            Some(seen) => seen.contains(k),
            None => self.keys.iter().skip(from).any(|&s| self.tree.str(s) == k),
        };
        if taken {
            let what = format!("has the key `{k}` twice");
            return Err(self.refuse_container(&what));
        }
        self.add_bytes(scalar_len(k) + 1 + usize::from(!first))?;
        let span = self.tree.push_str(k);
        self.keys.push(span);
        let large = self.keys.len() - from > SCAN_KEYS;
        let Some(f) = self.frames.last_mut() else {
            return Err(Refused);
        };
        f.count += 1;
        f.key = Some(span);
        match &mut f.seen {
            Some(seen) => {
                seen.insert(k.to_string());
            }
            None if large => {
                let seen = self
                    .keys
                    .iter()
                    .skip(from)
                    .map(|&s| self.tree.str(s).to_string())
                    .collect();
                f.seen = Some(seen);
            }
            None => {}
        }
        Ok(())
    }

    /// The request object's known fields, found in one pass over its members (keys are
    /// distinct, so each is found at most once); all `None` when the request is no object.
    fn fields(&self) -> [Option<At<'_>>; FIELDS.len()] {
        let mut found = [None; FIELDS.len()];
        if self
            .tree
            .nodes
            .first()
            .is_some_and(|n| matches!(n.kind, Kind::Object))
        {
            for member in self.tree.at(0).children() {
                if let Some(i) = FIELDS.iter().position(|&f| f == member.key()) {
                    if let Some(slot) = found.get_mut(i) {
                        *slot = Some(member);
                    }
                }
            }
        }
        found
    }

    /// The request's `tool_use_id`, when it is a string (a refusal still carries it).
    fn tool_use_id(&self) -> Option<String> {
        let [tool_use_id, ..] = self.fields();
        tool_use_id.and_then(JsonValue::as_str).map(str::to_string)
    }

    /// The request read, with the CLI's checks of the top-level fields (and its messages);
    /// a refused or unfinished request is a [`BadRequest`].
    ///
    /// # Errors
    ///
    /// The [`BadRequest`] the CLI answers for the same request as JSON text (or this reader's
    /// refusal, for values JSON cannot hold).
    pub fn request(&mut self) -> Result<RequestRef<'_, Args<'_>>, BadRequest> {
        let permissions = self.collect_permissions();
        self.checked(permissions)
    }

    /// Reads `permissions` into `self.permissions`: `Ok(true)` when the request has them,
    /// `Ok(false)` when it has none (absent or `null`), `Err` when they are not strings.
    fn collect_permissions(&mut self) -> Result<bool, ()> {
        self.permissions.clear();
        let [.., permissions] = self.fields();
        let read = match permissions {
            None => return Ok(false),
            Some(v) if v.kind() == JsonKind::Null => return Ok(false),
            Some(v) => v.items().ok_or(()).and_then(|items| {
                items
                    .map(|i| i.as_str().map(str::to_string).ok_or(()))
                    .collect::<Result<Vec<_>, ()>>()
            }),
        };
        self.permissions = read?;
        Ok(true)
    }

    /// The checks of `Request::from_json`'s fields, in its order and with its messages.
    fn checked<'t>(
        &'t self,
        permissions: Result<bool, ()>,
    ) -> Result<RequestRef<'t, Args<'t>>, BadRequest> {
        if let Some(message) = &self.refusal {
            return Err(BadRequest {
                message: message.clone(),
                tool_use_id: self.tool_use_id(),
            });
        }
        let top = self.tree.nodes.first().map(|n| n.kind);
        if !self.frames.is_empty() || !matches!(top, Some(Kind::Object)) {
            return Err(BadRequest {
                message: "a request must be a JSON object".into(),
                tool_use_id: None,
            });
        }
        // `permissions` were read by `collect_permissions`.
        let [tool_use_id, agent, tool, server, args, _] = self.fields();
        let tool_use_id = match tool_use_id {
            None => None,
            Some(v) if v.kind() == JsonKind::Null => None,
            Some(v) => Some(v.as_str().ok_or_else(|| BadRequest {
                message: "`tool_use_id` must be a string".into(),
                tool_use_id: None,
            })?),
        };
        let bad = |message: &str| BadRequest {
            message: message.to_string(),
            tool_use_id: tool_use_id.map(str::to_string),
        };
        let text = |name: &str, field: Option<At<'t>>| -> Result<&'t str, BadRequest> {
            match field {
                None => Err(bad(&format!("`{name}` is missing"))),
                Some(v) => v
                    .as_str()
                    .ok_or_else(|| bad(&format!("`{name}` must be a string"))),
            }
        };
        let agent = text("agent", agent)?;
        let tool = text("tool", tool)?;
        let server = match server {
            None => None,
            Some(v) if v.kind() == JsonKind::Null => None,
            Some(v) => Some(v.as_str().ok_or_else(|| bad("`server` must be a string"))?),
        };
        let args = match args {
            None => None,
            Some(v) if v.kind() == JsonKind::Object => Some(v),
            Some(_) => return Err(bad("`args` must be an object")),
        };
        let permissions = match permissions {
            Ok(true) => Some(self.permissions.as_slice()),
            Ok(false) => None,
            Err(()) => return Err(bad("`permissions` must be an array of strings")),
        };
        Ok(RequestRef {
            agent,
            server,
            tool,
            args: Args(args),
            tool_use_id,
            permissions,
        })
    }

    /// Decides the request read: the engine's decision, or `bad_request` with the reason
    /// it was refused (`explain` adds the trace, as `eval --explain` does).
    pub fn decide<'e>(&mut self, engine: &'e Engine, explain: bool) -> Decision<'e> {
        match self.request() {
            Ok(req) if explain => engine.decide_ref_explained(&req),
            Ok(req) => engine.decide_ref(&req),
            Err(bad) => {
                engine.bad_request(format!("bad request: {}", bad.message), bad.tool_use_id)
            }
        }
    }
}
