//! Reading request text in the form `toolgate.js` writes it, in place: one pass over the
//! bytes into a flat list of values borrowed from the text, which the engine reads through
//! `toolgate::value`'s traits (`Engine::decide_ref`). No string is copied, and a request of
//! up to 16 values allocates nothing.
//!
//! Only the common form is read here: the known fields, no whitespace, strings without
//! escapes or control characters, integers of up to 18 digits, `true`, `false`, `null`,
//! arrays and objects nested up to [`MAX_DEPTH`] deep, objects of up to [`MAX_MEMBERS`]
//! members, every key of an object distinct, and each field of the type the CLI requires.
//! Anything else — a float, an escape, a duplicate key, a wrongly typed field, text that is
//! not JSON — is `None`, and the caller parses the text with `toolgate::Request::from_json`,
//! which answers it exactly as the CLI does (and says what is wrong). So a request read here
//! holds the values `from_json` reads from the same text.

use smallvec::SmallVec;
use toolgate::value::{JsonArgs, JsonKind, JsonValue};
use toolgate::RequestRef;

/// The deepest nesting read here (the request object counts as one); deeper text is left to
/// the CLI's parser.
pub const MAX_DEPTH: usize = 32;

/// The most members an object read here has (each new key is compared with the earlier
/// ones); larger objects are left to the CLI's parser.
pub const MAX_MEMBERS: usize = 64;

/// A request read from text: its fields, and its arguments as a flat list of values.
#[derive(Debug)]
pub struct Parsed<'t> {
    agent: &'t str,
    tool: &'t str,
    server: Option<&'t str>,
    tool_use_id: Option<&'t str>,
    permissions: Option<Vec<String>>,
    /// The arguments object first, then every value inside it in text order; a container's
    /// values follow it, up to its `end`.
    nodes: Nodes<'t>,
}

impl<'t> Parsed<'t> {
    /// An empty request, for [`read_into`] to fill.
    pub fn new() -> Parsed<'t> {
        Parsed {
            agent: "",
            tool: "",
            server: None,
            tool_use_id: None,
            permissions: None,
            nodes: Nodes::new(),
        }
    }

    /// The request, for `Engine::decide_ref`.
    pub fn request(&self) -> RequestRef<'_, At<'_, 't>> {
        RequestRef {
            agent: self.agent,
            server: self.server,
            tool: self.tool,
            args: At {
                nodes: &self.nodes,
                i: 0,
            },
            tool_use_id: self.tool_use_id,
            permissions: self.permissions.as_deref(),
        }
    }
}

/// The values of a request's arguments; most requests' fit in place, without allocating.
type Nodes<'t> = SmallVec<[Node<'t>; INLINE_NODES]>;

/// How many values a request's arguments hold before [`Nodes`] allocates.
const INLINE_NODES: usize = 16;

/// One value, and the key it has in its object (empty in an array).
#[derive(Debug, Clone, Copy)]
struct Node<'t> {
    key: &'t str,
    /// One past the last node of this value (itself, and for a container all it holds).
    end: u32,
    kind: Kind<'t>,
}

#[derive(Debug, Clone, Copy)]
enum Kind<'t> {
    Null,
    // No decision reads a boolean's value (only its kind); the tests rebuild the value.
    Bool(#[allow(dead_code)] bool),
    Int(i64),
    Str(&'t str),
    Array,
    Object,
}

/// A value of a [`Parsed`] request: the engine reads the arguments through it.
#[derive(Debug, Clone, Copy)]
pub struct At<'d, 't> {
    nodes: &'d [Node<'t>],
    i: usize,
}

impl<'d, 't> At<'d, 't> {
    fn node(self) -> Option<&'d Node<'t>> {
        self.nodes.get(self.i)
    }

    /// The values a container holds, in order.
    fn children(self) -> Children<'d, 't> {
        let end = self.node().map_or(0, |n| n.end as usize);
        Children {
            nodes: self.nodes,
            next: self.i + 1,
            end,
        }
    }
}

/// The values an array or object holds, in order.
#[derive(Debug, Clone)]
pub struct Children<'d, 't> {
    nodes: &'d [Node<'t>],
    next: usize,
    end: usize,
}

impl<'d, 't> Iterator for Children<'d, 't> {
    type Item = At<'d, 't>;

    fn next(&mut self) -> Option<At<'d, 't>> {
        if self.next >= self.end {
            return None;
        }
        let at = At {
            nodes: self.nodes,
            i: self.next,
        };
        // A node always ends past itself; a corrupt end stops the walk.
        self.next = at
            .node()
            .map_or(self.end, |n| (n.end as usize).max(self.next + 1));
        Some(at)
    }
}

impl<'d, 't: 'd> JsonValue<'d> for At<'d, 't> {
    type Items = Children<'d, 't>;

    fn kind(self) -> JsonKind {
        match self.node().map(|n| n.kind) {
            None | Some(Kind::Null) => JsonKind::Null,
            Some(Kind::Bool(_)) => JsonKind::Bool,
            Some(Kind::Int(_)) => JsonKind::Number,
            Some(Kind::Str(_)) => JsonKind::String,
            Some(Kind::Array) => JsonKind::Array,
            Some(Kind::Object) => JsonKind::Object,
        }
    }

    fn as_str(self) -> Option<&'d str> {
        match self.node()?.kind {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }

    fn as_f64(self) -> Option<f64> {
        match self.node()?.kind {
            // Exact: 18 digits at most.
            Kind::Int(n) => Some(n as f64),
            _ => None,
        }
    }

    fn is_integer(self) -> bool {
        matches!(self.node().map(|n| n.kind), Some(Kind::Int(_)))
    }

    fn items(self) -> Option<Children<'d, 't>> {
        matches!(self.node()?.kind, Kind::Array).then(|| self.children())
    }

    fn member(self, key: &str) -> Option<Self> {
        if !matches!(self.node()?.kind, Kind::Object) {
            return None;
        }
        self.children()
            .find(|c| c.node().is_some_and(|n| n.key == key))
    }
}

impl<'d, 't: 'd> JsonArgs<'d> for At<'d, 't> {
    type Value = At<'d, 't>;

    fn arg(self, key: &str) -> Option<At<'d, 't>> {
        self.member(key)
    }
}

/// Whether a byte ends a string's plain run: a quote, a backslash or a control character.
fn special(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// The index of the first [`special`] byte of `bytes`, found eight bytes at a time.
///
/// Each test flags the bytes it finds in their top bit. A flag can be wrong only above
/// (after) a right one of the same test, where the subtraction's borrow reaches, so the
/// lowest flag of the three is the first special byte.
fn plain_run(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        let quote = x ^ (ONES * u64::from(b'"'));
        let backslash = x ^ (ONES * u64::from(b'\\'));
        let flags = (quote.wrapping_sub(ONES) & !quote
            | backslash.wrapping_sub(ONES) & !backslash
            | x.wrapping_sub(ONES * 0x20) & !x)
            & HIGH;
        if flags != 0 {
            return Some(at + (flags.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| special(b))
        .map(|i| at + i)
}

/// Reads the request `text` holds into `req` (a fresh one), and says whether it is in the
/// common form (see the module's documentation); when not, `req` holds nothing to use.
/// (Filled in place: a request is too large to move around cheaply.)
pub fn read_into<'t>(text: &'t str, req: &mut Parsed<'t>) -> bool {
    let mut r = Reader {
        text,
        bytes: text.as_bytes(),
        at: 0,
    };
    r.request(req).is_some() && r.at == r.bytes.len()
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Steps over `b` when it is next.
    fn eat(&mut self, b: u8) -> bool {
        let next = self.peek() == Some(b);
        self.at += usize::from(next);
        next
    }

    fn request(&mut self, req: &mut Parsed<'a>) -> Option<()> {
        if !self.eat(b'{') {
            return None;
        }
        let (mut agent, mut tool, mut args) = (false, false, false);
        // Fields seen, as bits: a field given twice is a duplicate key.
        let mut seen = 0u8;
        if self.eat(b'}') {
            return None; // `agent` is missing: the CLI's parser words the refusal
        }
        loop {
            let key = self.string()?;
            if !self.eat(b':') {
                return None;
            }
            let bit = match key {
                "agent" => 1,
                "tool" => 2,
                "server" => 4,
                "args" => 8,
                "tool_use_id" => 16,
                "permissions" => 32,
                _ => return None,
            };
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            match bit {
                1 => {
                    req.agent = self.string()?;
                    agent = true;
                }
                2 => {
                    req.tool = self.string()?;
                    tool = true;
                }
                4 => req.server = self.optional_string()?,
                8 => {
                    self.object(&mut req.nodes, "", 2)?;
                    args = true;
                }
                16 => req.tool_use_id = self.optional_string()?,
                _ => req.permissions = self.permissions()?,
            }
            if self.eat(b'}') {
                break;
            }
            if !self.eat(b',') {
                return None;
            }
        }
        if !args {
            // No arguments: an empty object.
            req.nodes.push(Node {
                key: "",
                end: 1,
                kind: Kind::Object,
            });
        }
        (agent && tool).then_some(())
    }

    /// A string or `null`.
    fn optional_string(&mut self) -> Option<Option<&'a str>> {
        if self.literal(b"null") {
            return Some(None);
        }
        Some(Some(self.string()?))
    }

    /// `null` or an array of strings.
    fn permissions(&mut self) -> Option<Option<Vec<String>>> {
        if self.literal(b"null") {
            return Some(None);
        }
        if !self.eat(b'[') {
            return None;
        }
        let mut out = Vec::new();
        if self.eat(b']') {
            return Some(Some(out));
        }
        loop {
            out.push(self.string()?.to_string());
            if self.eat(b']') {
                return Some(Some(out));
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// Steps over `word` when it is next.
    fn literal(&mut self, word: &[u8]) -> bool {
        let next = self.bytes.get(self.at..self.at + word.len()) == Some(word);
        if next {
            self.at += word.len();
        }
        next
    }

    /// A string without escapes or control characters, as the text between its quotes.
    fn string(&mut self) -> Option<&'a str> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.at;
        let bytes: &'a [u8] = self.bytes;
        let rest = bytes.get(start..)?;
        let len = plain_run(rest)?;
        if rest.get(len) != Some(&b'"') {
            return None;
        }
        self.at = start + len + 1;
        // The span starts after and ends before an ASCII quote, so it is a whole number of
        // characters of the text.
        let text: &'a str = self.text;
        text.get(start..start + len)
    }

    /// An object whose keys are distinct, `depth` containers deep, under `key`: pushed on
    /// `nodes` with its members.
    fn object(&mut self, nodes: &mut Nodes<'a>, key: &'a str, depth: usize) -> Option<()> {
        self.container(nodes, key, depth, Kind::Object, Self::member)
    }

    /// An array `depth` containers deep, under `key`: pushed on `nodes` with its elements.
    fn array(&mut self, nodes: &mut Nodes<'a>, key: &'a str, depth: usize) -> Option<()> {
        self.container(nodes, key, depth, Kind::Array, |r, nodes, _, _, depth| {
            r.value(nodes, "", depth)
        })
    }

    /// An object's or array's text, `depth` containers deep, under `key`: its node pushed on
    /// `nodes`, then each member read by `member` (given where the container's node is, how
    /// many members came before and the depth), then the node's end set.
    fn container(
        &mut self,
        nodes: &mut Nodes<'a>,
        key: &'a str,
        depth: usize,
        kind: Kind<'a>,
        member: impl Fn(&mut Self, &mut Nodes<'a>, usize, usize, usize) -> Option<()>,
    ) -> Option<()> {
        let (open, close) = match kind {
            Kind::Object => (b'{', b'}'),
            _ => (b'[', b']'),
        };
        if depth > MAX_DEPTH || !self.eat(open) {
            return None;
        }
        let at = nodes.len();
        nodes.push(Node { key, end: 0, kind });
        if !self.eat(close) {
            let mut count = 0;
            loop {
                member(self, nodes, at, count, depth)?;
                count += 1;
                if self.eat(close) {
                    break;
                }
                if !self.eat(b',') {
                    return None;
                }
            }
        }
        let end = u32::try_from(nodes.len()).ok()?;
        nodes.get_mut(at)?.end = end;
        Some(())
    }

    /// One `"key":value` member of the object whose node is at `at`, after `count` others.
    fn member(
        &mut self,
        nodes: &mut Nodes<'a>,
        at: usize,
        count: usize,
        depth: usize,
    ) -> Option<()> {
        let key = self.string()?;
        if !self.eat(b':') || count == MAX_MEMBERS {
            return None;
        }
        // A key given twice: the CLI's parser refuses it.
        let mut c = at + 1;
        while let Some(n) = nodes.get(c) {
            if n.key == key {
                return None;
            }
            c = n.end as usize;
        }
        self.value(nodes, key, depth)
    }

    /// One value inside a container `depth` deep, under `key`: pushed on `nodes`.
    fn value(&mut self, nodes: &mut Nodes<'a>, key: &'a str, depth: usize) -> Option<()> {
        let kind = match self.peek()? {
            b'"' => Kind::Str(self.string()?),
            b'{' => return self.object(nodes, key, depth + 1),
            b'[' => return self.array(nodes, key, depth + 1),
            b't' => self.literal(b"true").then_some(Kind::Bool(true))?,
            b'f' => self.literal(b"false").then_some(Kind::Bool(false))?,
            b'n' => self.literal(b"null").then_some(Kind::Null)?,
            _ => Kind::Int(self.integer()?),
        };
        let end = u32::try_from(nodes.len() + 1).ok()?;
        nodes.push(Node { key, end, kind });
        Some(())
    }

    /// An integer of 1 to 18 digits without a leading zero (or `0`), optionally negative
    /// (not `-0`), followed by no fraction or exponent: the JSON number serde_json reads as
    /// that integer.
    fn integer(&mut self) -> Option<i64> {
        let negative = self.eat(b'-');
        let start = self.at;
        let digits = self.bytes.get(start..)?;
        let len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
        if len == 0 || len > 18 || (digits[0] == b'0' && (len > 1 || negative)) {
            return None;
        }
        if matches!(digits.get(len), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        let n = digits[..len]
            .iter()
            .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0'));
        self.at = start + len;
        // 18 digits fit an i64 either way.
        let n = i64::try_from(n).ok()?;
        Some(if negative { -n } else { n })
    }
}

#[cfg(test)]
mod tests {
    use super::{read_into, At, Kind, Parsed};
    use proptest::strategy::Strategy;
    use serde_json::Value;
    use toolgate::Request;

    fn read(text: &str) -> Option<Parsed<'_>> {
        let mut req = Parsed::new();
        read_into(text, &mut req).then_some(req)
    }

    /// The value `at` stands for, built from the nodes themselves.
    fn to_value(at: At<'_, '_>) -> Value {
        match at.node().expect("in range").kind {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(b),
            Kind::Int(n) => Value::from(n),
            Kind::Str(s) => Value::from(s),
            Kind::Array => Value::Array(at.children().map(to_value).collect()),
            Kind::Object => Value::Object(
                at.children()
                    .map(|c| (c.node().expect("in range").key.to_string(), to_value(c)))
                    .collect(),
            ),
        }
    }

    /// The request a parsed one stands for, as an owned `Request`.
    fn owned(p: &Parsed<'_>) -> Request {
        let r = p.request();
        let Value::Object(args) = to_value(r.args) else {
            panic!("the arguments are an object");
        };
        Request {
            agent: r.agent.to_string(),
            server: r.server.map(String::from),
            tool: r.tool.to_string(),
            args,
            tool_use_id: r.tool_use_id.map(String::from),
            permissions: r.permissions.map(<[String]>::to_vec),
        }
    }

    /// Every text read here is the request `from_json` reads from it, and decides as it.
    fn same(text: &str) -> bool {
        match read(text) {
            Some(parsed) => {
                let from_json = Request::from_json(text);
                assert_eq!(Ok(owned(&parsed)), from_json, "{text}");
                if let Ok(req) = from_json {
                    let e = engine();
                    assert_eq!(e.decide_ref(&parsed.request()), e.decide(&req), "{text}");
                }
                true
            }
            None => false,
        }
    }

    /// A policy reading arguments every way a decision can: typed and untyped, dotted paths
    /// through objects and arrays, strings, numbers, `in` lists and path patterns.
    fn engine() -> &'static toolgate::Engine {
        static ENGINE: std::sync::OnceLock<toolgate::Engine> = std::sync::OnceLock::new();
        ENGINE.get_or_init(|| {
            toolgate::load::engine_from_str(
                "eq.policy",
                r#"tool t(p?, n?: integer, o?: object, l?: array<string>, q?)
tool u(p?: string)
agent a {
  deny t where o.k contains "rm"
  deny t where q.r.s == 1
  deny t where n > 6
  allow t where p matches "/x/**" and n <= 5
  allow t where l in ["a", "b"]
  allow t where q > 2
  allow u where p == "x"
}
"#,
            )
            .expect("compiles")
        })
    }

    #[test]
    fn the_common_form_is_read_as_the_cli_reads_it() {
        for text in [
            r#"{"agent":"a","tool":"t"}"#,
            r#"{"tool_use_id":"k","agent":"a","tool":"t","server":"s","args":{"p":"/x","n":5,"m":-12,"z":0,"b":true,"c":false,"u":null},"permissions":["fs:read"]}"#,
            r#"{"agent":"a","tool":"t","server":null,"tool_use_id":null,"permissions":null}"#,
            r#"{"agent":"a","tool":"t","args":{"l":[1,"x",[],{},[{"q":[null]}]],"o":{"p":{"q":"é"}}},"permissions":[]}"#,
            r#"{"agent":"ü","tool":"t","args":{}}"#,
            r#"{"agent":"a","tool":"t","args":{"n":999999999999999999,"m":-999999999999999999}}"#,
            r#"{"agent":"a","tool":"t","args":{"p":"/x/y","n":5}}"#,
            r#"{"agent":"a","tool":"t","args":{"p":"/x/y","n":6}}"#,
            r#"{"agent":"a","tool":"t","args":{"p":["/x/y","/x/z"],"n":[1,[2]]}}"#,
            r#"{"agent":"a","tool":"t","args":{"p":"/x/y","n":"5"}}"#,
            r#"{"agent":"a","tool":"t","args":{"p":"/x","o":{"k":"rm -rf"}}}"#,
            r#"{"agent":"a","tool":"t","args":{"p":"/x","o":[{"k":"rm"}]}}"#,
            r#"{"agent":"a","tool":"t","args":{"p":"/x","q":{"r":[{"s":1}]}}}"#,
            r#"{"agent":"a","tool":"t","args":{"p":"/y","q":[3,4]}}"#,
            r#"{"agent":"a","tool":"t","args":{"p":"/y","l":["a","b"]}}"#,
            r#"{"agent":"a","tool":"t","args":{"p":"/y","l":["a",1]}}"#,
            r#"{"agent":"a","tool":"u","tool_use_id":"k","args":{"p":"x"}}"#,
            r#"{"agent":"a","tool":"u","args":{"p":null}}"#,
            r#"{"agent":"b","tool":"u"}"#,
            r#"{"agent":"a","tool":"v","server":"s"}"#,
        ] {
            assert!(same(text), "not read: {text}");
        }
    }

    #[test]
    fn anything_else_is_left_to_the_cli_parser() {
        for text in [
            "null",
            "{}",
            "[]",
            "",
            "{",
            r#"{"agent":"a"}"#,
            r#"{"tool":"t"}"#,
            r#"{"agent":"a","tool":"t"} "#,
            r#"{"agent":"a","tool":"t"}{}"#,
            r#"{ "agent":"a","tool":"t"}"#,
            r#"{"agent":"a","tool":"t","x":1}"#,
            r#"{"agent":"a","agent":"b","tool":"t"}"#,
            r#"{"agent":"a","tool":"t","args":{"p":1,"p":2}}"#,
            r#"{"agent":"a","tool":"t","args":{"o":{"p":1,"p":1}}}"#,
            r#"{"agent":5,"tool":"t"}"#,
            r#"{"agent":"a","tool":"t","server":5}"#,
            r#"{"agent":"a","tool":"t","args":[]}"#,
            r#"{"agent":"a","tool":"t","args":null}"#,
            r#"{"agent":"a","tool":"t","permissions":["x",1]}"#,
            r#"{"agent":"a","tool":"t","tool_use_id":7}"#,
            r#"{"agent":"a\"b","tool":"t"}"#,
            r#"{"agent":"a\u0062","tool":"t"}"#,
            "{\"agent\":\"a\tb\",\"tool\":\"t\"}",
            r#"{"agent":"a","tool":"t","args":{"n":1.5}}"#,
            r#"{"agent":"a","tool":"t","args":{"n":1e3}}"#,
            r#"{"agent":"a","tool":"t","args":{"n":-0}}"#,
            r#"{"agent":"a","tool":"t","args":{"n":01}}"#,
            r#"{"agent":"a","tool":"t","args":{"n":1000000000000000000}}"#,
            r#"{"agent":"a","tool":"t","args":{"n":-}}"#,
            r#"{"agent":"a","tool":"t","args":{"b":tru}}"#,
            r#"{"agent":"a","tool":"t","args":{"l":[1,]}}"#,
            r#"{"agent":"a","tool":"t","args":{"l":[1 ]}}"#,
            r#"{"agent":"a","tool":"t",}"#,
        ] {
            assert!(read(text).is_none(), "read: {text}");
        }
    }

    #[test]
    fn objects_past_the_member_limit_are_left_to_the_cli_parser() {
        let object = |members: usize| {
            let body: Vec<String> = (0..members).map(|i| format!(r#""k{i}":{i}"#)).collect();
            format!(
                r#"{{"agent":"a","tool":"t","args":{{"o":{{{}}}}}}}"#,
                body.join(",")
            )
        };
        assert!(same(&object(super::MAX_MEMBERS)));
        assert!(read(&object(super::MAX_MEMBERS + 1)).is_none());
    }

    #[test]
    fn nesting_past_the_limit_is_left_to_the_cli_parser() {
        let nested = |levels: usize| {
            format!(
                r#"{{"agent":"a","tool":"t","args":{{"p":{}1{}}}}}"#,
                "[".repeat(levels),
                "]".repeat(levels)
            )
        };
        // The request and `args` are two levels.
        assert!(same(&nested(super::MAX_DEPTH - 2)));
        assert!(read(&nested(super::MAX_DEPTH - 1)).is_none());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]

        /// The word-at-a-time scan finds the first special byte, as a byte-by-byte one does.
        #[test]
        fn plain_run_finds_the_first_special_byte(
            bytes in proptest::collection::vec(proptest::prop_oneof![
                12 => proptest::sample::select(vec![0x20u8, 0x21, 0x23, 0x5b, 0x5d, b'a', 0x7f, 0x80, 0xa2, 0xdc, 0xff]),
                1 => proptest::sample::select(vec![0u8, 0x01, 0x1f, b'"', b'\\']),
            ], 0..48),
        ) {
            proptest::prop_assert_eq!(
                super::plain_run(&bytes),
                bytes.iter().position(|&b| super::special(b))
            );
        }

        /// On text built from the pieces of requests (valid or not), whatever is read here
        /// is what `from_json` reads.
        #[test]
        fn agrees_with_from_json(parts in proptest::collection::vec(proptest::sample::select(vec![
            "{", "}", "[", "]", ",", ":", "\"agent\"", "\"tool\"", "\"args\"", "\"server\"",
            "\"tool_use_id\"", "\"permissions\"", "\"p\"", "\"q\"", "\"a\"", "\"t\"", "1", "-3",
            "0", "12.5", "null", "true", "false", "\"x\\\"y\"", " ",
        ]), 0..40)) {
            let text: String = parts.concat();
            same(&text);
            let wrapped = format!(r#"{{"agent":"a","tool":"t","args":{{"p":{text}}}}}"#);
            same(&wrapped);
        }

        /// Requests of every shape the common form allows (compact text, strings without
        /// escapes, integers) are read here, and decide as the CLI's parser's.
        #[test]
        fn common_requests_decide_as_from_json(
            agent in proptest::sample::select(vec!["a", "a", "a", "b"]),
            tool in proptest::sample::select(vec!["t", "t", "t", "u", "v"]),
            id in proptest::option::of("[a-z0-9_]{0,6}"),
            args in proptest::collection::btree_map(key(), json(), 0..5),
        ) {
            let mut req = serde_json::json!({"agent": agent, "tool": tool, "args": args});
            if let Some(id) = id {
                req["tool_use_id"] = Value::from(id);
            }
            let text = serde_json::to_string(&req).expect("serializes");
            proptest::prop_assert!(same(&text), "not read: {}", text);
        }
    }

    fn key() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::sample::select(vec!["p", "n", "o", "l", "q", "k", "r", "s"])
            .prop_map(String::from)
    }

    /// JSON values in the common form, over the keys and strings the test policy reads.
    fn json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-999_999_999_999_999_999i64..=999_999_999_999_999_999).prop_map(Value::from),
            (-3i64..8).prop_map(Value::from),
            (5i64..=7).prop_map(Value::from),
            proptest::sample::select(vec![
                "/x/y",
                "/x",
                "/y/../x/z",
                "rm -rf",
                "a",
                "b",
                "x",
                "é",
                ""
            ])
            .prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map(key(), inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }
}
