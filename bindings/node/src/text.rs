//! Reading request text in the form `toolgate.js` writes it, straight into a
//! `toolgate::Request`: one pass over the bytes, no serde machinery, no intermediate values.
//!
//! Only the common form is read here: the known fields, no whitespace, strings without
//! escapes or control characters, integers of up to 18 digits, `true`, `false`, `null`,
//! arrays and objects nested up to [`MAX_DEPTH`] deep, every key of an object distinct, and
//! each field of the type the CLI requires. Anything else — a float, an escape, a duplicate
//! key, a wrongly typed field, text that is not JSON — is `None`, and the caller parses the
//! text with `toolgate::Request::from_json`, which answers it exactly as the CLI does (and says
//! what is wrong). So a request read here is the one `from_json` reads from the same text.

use serde_json::{Map, Value};
use toolgate::Request;

/// The deepest nesting read here (the request object counts as one); deeper text is left to
/// the CLI's parser.
pub const MAX_DEPTH: usize = 32;

/// The request `text` holds, when it is in the common form (see the module's documentation);
/// `None` otherwise.
pub fn read(text: &str) -> Option<Request> {
    let mut r = Reader {
        text,
        bytes: text.as_bytes(),
        at: 0,
    };
    let req = r.request()?;
    (r.at == r.bytes.len()).then_some(req)
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

    fn request(&mut self) -> Option<Request> {
        if !self.eat(b'{') {
            return None;
        }
        let mut req = Request::default();
        let (mut agent, mut tool) = (false, false);
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
                    req.agent = self.string()?.to_string();
                    agent = true;
                }
                2 => {
                    req.tool = self.string()?.to_string();
                    tool = true;
                }
                4 => req.server = self.optional_string()?,
                8 => req.args = self.object(2)?,
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
        (agent && tool).then_some(req)
    }

    /// A string or `null`.
    fn optional_string(&mut self) -> Option<Option<String>> {
        if self.literal(b"null") {
            return Some(None);
        }
        Some(Some(self.string()?.to_string()))
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
        let len = rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        if rest[len] != b'"' {
            return None;
        }
        self.at = start + len + 1;
        // The span starts after and ends before an ASCII quote, so it is a whole number of
        // characters of the text.
        let text: &'a str = self.text;
        text.get(start..start + len)
    }

    /// An object whose keys are distinct, `depth` containers deep.
    fn object(&mut self, depth: usize) -> Option<Map<String, Value>> {
        if depth > MAX_DEPTH || !self.eat(b'{') {
            return None;
        }
        let mut out = Map::new();
        if self.eat(b'}') {
            return Some(out);
        }
        loop {
            let key = self.string()?.to_string();
            if !self.eat(b':') {
                return None;
            }
            let v = self.value(depth)?;
            if out.insert(key, v).is_some() {
                return None;
            }
            if self.eat(b'}') {
                return Some(out);
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// One value inside a container `depth` deep.
    fn value(&mut self, depth: usize) -> Option<Value> {
        match self.peek()? {
            b'"' => Some(Value::String(self.string()?.to_string())),
            b'{' => self.object(depth + 1).map(Value::Object),
            b'[' => self.array(depth + 1),
            b't' => self.literal(b"true").then_some(Value::Bool(true)),
            b'f' => self.literal(b"false").then_some(Value::Bool(false)),
            b'n' => self.literal(b"null").then_some(Value::Null),
            _ => self.integer(),
        }
    }

    fn array(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH || !self.eat(b'[') {
            return None;
        }
        let mut out = Vec::new();
        if self.eat(b']') {
            return Some(Value::Array(out));
        }
        loop {
            out.push(self.value(depth)?);
            if self.eat(b']') {
                return Some(Value::Array(out));
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// An integer of 1 to 18 digits without a leading zero (or `0`), optionally negative
    /// (not `-0`), followed by no fraction or exponent: the JSON number serde_json reads as
    /// that integer.
    fn integer(&mut self) -> Option<Value> {
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
        if negative {
            // 18 digits fit an i64 either way.
            i64::try_from(n).ok().map(|n| Value::from(-n))
        } else {
            Some(Value::from(n))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::read;
    use toolgate::Request;

    /// Every text read here is the request `from_json` reads from it.
    fn same(text: &str) -> bool {
        match read(text) {
            Some(req) => {
                assert_eq!(Ok(req), Request::from_json(text), "{text}");
                true
            }
            None => false,
        }
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
    }
}
