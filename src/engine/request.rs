//! A tool call as a host asks about it, and its strict JSON form.

use super::json::RequestFields;
use serde_json::{Map, Value};

/// The largest request line `Request::from_json` accepts, in bytes.
///
/// # Example
///
/// ```
/// let line = format!(r#"{{"agent": "a", "tool": "t", "args": {{"p": "{}"}}}}"#, "x".repeat(toolgate::engine::request::MAX_REQUEST_BYTES));
/// let err = toolgate::Request::from_json(&line).unwrap_err();
/// assert!(err.message.starts_with("request is "));
/// ```
pub const MAX_REQUEST_BYTES: usize = 1 << 20;

/// The deepest nesting of arrays and objects a request may have, the request object included:
/// `Request::from_json` refuses the next level (serde_json's recursion limit), and every host
/// reading its own values refuses it too ([`crate::host::request::RequestReader`]).
///
/// # Example
///
/// ```
/// use toolgate::engine::request::MAX_DEPTH;
/// let nest = |levels: usize| format!(r#"{{"agent": "a", "tool": "t", "args": {{"p": {}1{}}}}}"#,
///     "[".repeat(levels - 2), "]".repeat(levels - 2));
/// assert!(toolgate::Request::from_json(&nest(MAX_DEPTH)).is_ok());
/// assert!(toolgate::Request::from_json(&nest(MAX_DEPTH + 1)).is_err());
/// ```
pub const MAX_DEPTH: usize = 127;

/// One tool call to decide.
///
/// ```
/// use toolgate::Request;
/// let req = Request::new("code-assistant", "git_log")
///     .server("git")
///     .args(serde_json::json!({"repo_path": "/home/user/projects/toolgate"}))
///     .tool_use_id("toolu_01");
/// assert_eq!(req, Request::from_json(r#"{"agent": "code-assistant", "server": "git", "tool": "git_log",
///     "args": {"repo_path": "/home/user/projects/toolgate"}, "tool_use_id": "toolu_01"}"#).unwrap());
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Request {
    /// The agent making the call.
    pub agent: String,
    /// The server the tool is on, when the host knows it.
    pub server: Option<String>,
    /// The tool's bare name.
    pub tool: String,
    /// The call's arguments.
    pub args: Map<String, Value>,
    /// The host's id for the call, echoed in the decision.
    pub tool_use_id: Option<String>,
    /// Permissions the tool declares (only for policies without a catalog).
    pub permissions: Option<Vec<String>>,
}

/// A request whose fields are borrowed, with arguments of any [`JsonArgs`](crate::value::JsonArgs) type: what
/// [`Engine::decide_ref`](crate::Engine::decide_ref) decides. A host that reads request text in
/// place builds one without allocating; [`Request::borrowed`] gives one for an owned request.
///
/// # Example
///
/// ```
/// let req = toolgate::Request::new("a", "t").server("s");
/// let r = req.borrowed();
/// assert_eq!((r.agent, r.tool, r.server), ("a", "t", Some("s")));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct RequestRef<'a, A> {
    /// The agent making the call.
    pub agent: &'a str,
    /// The server the tool is on, when the host knows it.
    pub server: Option<&'a str>,
    /// The tool's bare name.
    pub tool: &'a str,
    /// The call's arguments.
    pub args: A,
    /// The host's id for the call, echoed in the decision.
    pub tool_use_id: Option<&'a str>,
    /// Permissions the tool declares (only for policies without a catalog).
    pub permissions: Option<&'a [String]>,
}

/// Why a request was refused as `bad_request`.
///
/// # Example
///
/// ```
/// let err = toolgate::Request::from_json(r#"{"agent": 1, "tool": "t", "tool_use_id": "toolu_1"}"#).unwrap_err();
/// assert_eq!(err.message, "`agent` must be a string");
/// assert_eq!(err.tool_use_id.as_deref(), Some("toolu_1"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRequest {
    /// What is wrong.
    pub message: String,
    /// The request's `tool_use_id`, when it could be read.
    pub tool_use_id: Option<String>,
}

impl BadRequest {
    /// A request of `len` bytes, over [`MAX_REQUEST_BYTES`].
    ///
    /// # Example
    ///
    /// ```
    /// let e = toolgate::engine::BadRequest::too_large(5 << 20);
    /// assert_eq!(e.message, format!("request is {} bytes; the limit is 1048576", 5 << 20));
    /// ```
    pub fn too_large(len: usize) -> BadRequest {
        BadRequest {
            message: format!("request is {len} bytes; the limit is {MAX_REQUEST_BYTES}"),
            tool_use_id: None,
        }
    }
}

impl Request {
    /// This request with its fields borrowed, for [`Engine::decide_ref`](crate::Engine::decide_ref).
    pub fn borrowed(&self) -> RequestRef<'_, &Map<String, Value>> {
        RequestRef {
            agent: &self.agent,
            server: self.server.as_deref(),
            tool: &self.tool,
            args: &self.args,
            tool_use_id: self.tool_use_id.as_deref(),
            permissions: self.permissions.as_deref(),
        }
    }

    /// A request for `tool` by `agent` with no arguments.
    ///
    /// # Example
    ///
    /// ```
    /// let req = toolgate::Request::new("a", "t");
    /// assert_eq!((req.agent.as_str(), req.tool.as_str(), req.server), ("a", "t", None));
    /// assert!(req.args.is_empty());
    /// ```
    pub fn new(agent: impl Into<String>, tool: impl Into<String>) -> Request {
        Request {
            agent: agent.into(),
            tool: tool.into(),
            ..Request::default()
        }
    }

    /// Sets the server.
    ///
    /// # Example
    ///
    /// ```
    /// let req = toolgate::Request::new("a", "git_log").server("git");
    /// assert_eq!(req.server.as_deref(), Some("git"));
    /// ```
    pub fn server(mut self, server: impl Into<String>) -> Request {
        self.server = Some(server.into());
        self
    }

    /// Sets the arguments from a JSON object; anything else leaves them empty.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::Request;
    /// assert_eq!(Request::new("a", "t").args(serde_json::json!({"p": 1})).args["p"], 1);
    /// assert!(Request::new("a", "t").args(serde_json::json!([1])).args.is_empty());
    /// ```
    pub fn args(mut self, args: Value) -> Request {
        if let Value::Object(m) = args {
            self.args = m;
        }
        self
    }

    /// Sets the tool-use id.
    ///
    /// # Example
    ///
    /// ```
    /// let req = toolgate::Request::new("a", "t").tool_use_id("toolu_1");
    /// assert_eq!(req.tool_use_id.as_deref(), Some("toolu_1"));
    /// ```
    pub fn tool_use_id(mut self, id: impl Into<String>) -> Request {
        self.tool_use_id = Some(id.into());
        self
    }

    /// Sets the permissions the tool declares (policies without a catalog).
    ///
    /// # Example
    ///
    /// ```
    /// let req = toolgate::Request::new("a", "t").permissions(["fs:read"]);
    /// let engine = toolgate::load::engine_from_str("p.policy", "agent a { allow t }").unwrap();
    /// assert_eq!(engine.decide(&req).reason.as_str(), "permission_missing");
    /// ```
    pub fn permissions<S: Into<String>>(mut self, perms: impl IntoIterator<Item = S>) -> Request {
        self.permissions = Some(perms.into_iter().map(Into::into).collect());
        self
    }

    /// Parses one JSON request. Duplicate keys anywhere, nesting deeper than 128, more than
    /// [`MAX_REQUEST_BYTES`], and wrongly typed fields are refused.
    ///
    /// # Errors
    ///
    /// A [`BadRequest`] saying what is wrong (and carrying the `tool_use_id` when readable).
    ///
    /// ```
    /// let e = toolgate::Request::from_json(r#"{"agent": "a", "tool": "t", "args": {"p": 1, "p": 2}}"#).unwrap_err();
    /// assert!(e.message.contains("duplicate key"));
    /// ```
    pub fn from_json(text: &str) -> Result<Request, BadRequest> {
        if text.len() > MAX_REQUEST_BYTES {
            return Err(BadRequest::too_large(text.len()));
        }
        match super::json::parse_request_fields(text) {
            Ok(Some(fields)) => Request::from_fields(fields),
            Ok(None) => Err(not_an_object()),
            Err(e) => Err(BadRequest {
                message: format!("invalid JSON: {e}"),
                tool_use_id: None,
            }),
        }
    }

    /// Reads a request from a parsed JSON value.
    ///
    /// # Example
    ///
    /// ```
    /// let req = toolgate::Request::from_value(serde_json::json!({"agent": "a", "tool": "t"})).unwrap();
    /// assert_eq!((req.agent.as_str(), req.tool.as_str()), ("a", "t"));
    /// assert!(toolgate::Request::from_value(serde_json::json!([])).is_err());
    /// ```
    pub fn from_value(value: Value) -> Result<Request, BadRequest> {
        let Value::Object(mut obj) = value else {
            return Err(not_an_object());
        };
        Request::from_fields(RequestFields {
            agent: obj.remove("agent"),
            tool: obj.remove("tool"),
            server: obj.remove("server"),
            args: obj.remove("args"),
            tool_use_id: obj.remove("tool_use_id"),
            permissions: obj.remove("permissions"),
        })
    }

    /// Type-checks the top-level fields (one place for both parsers).
    fn from_fields(fields: RequestFields) -> Result<Request, BadRequest> {
        let tool_use_id = match fields.tool_use_id {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(_) => {
                return Err(BadRequest {
                    message: "`tool_use_id` must be a string".into(),
                    tool_use_id: None,
                })
            }
        };
        let bad = |message: &str| BadRequest {
            message: message.to_string(),
            tool_use_id: tool_use_id.clone(),
        };
        let agent = match fields.agent {
            Some(Value::String(s)) => s,
            Some(_) => return Err(bad("`agent` must be a string")),
            None => return Err(bad("`agent` is missing")),
        };
        let tool = match fields.tool {
            Some(Value::String(s)) => s,
            Some(_) => return Err(bad("`tool` must be a string")),
            None => return Err(bad("`tool` is missing")),
        };
        let server = match fields.server {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(_) => return Err(bad("`server` must be a string")),
        };
        let args = match fields.args {
            None => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => return Err(bad("`args` must be an object")),
        };
        let permissions = match fields.permissions {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    match item {
                        Value::String(s) => out.push(s),
                        _ => return Err(bad("`permissions` must be an array of strings")),
                    }
                }
                Some(out)
            }
            Some(_) => return Err(bad("`permissions` must be an array of strings")),
        };
        Ok(Request {
            agent,
            server,
            tool,
            args,
            tool_use_id,
            permissions,
        })
    }
}

fn not_an_object() -> BadRequest {
    BadRequest {
        message: "a request must be a JSON object".into(),
        tool_use_id: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_documented_shape() {
        let r = Request::from_json(
            r#"{"agent": "a", "server": "git", "tool": "git_log", "args": {"repo_path": "/x"}, "tool_use_id": "t1"}"#,
        )
        .unwrap();
        assert_eq!(r.agent, "a");
        assert_eq!(r.server.as_deref(), Some("git"));
        assert_eq!(r.args["repo_path"], "/x");
        assert_eq!(r.tool_use_id.as_deref(), Some("t1"));
    }

    #[test]
    fn refuses_bad_shapes_and_keeps_the_id() {
        assert!(Request::from_json("[]").is_err());
        assert!(Request::from_json("not json").is_err());
        let e =
            Request::from_json(r#"{"agent": 1, "tool": "x", "tool_use_id": "t9"}"#).unwrap_err();
        assert_eq!(e.tool_use_id.as_deref(), Some("t9"));
        assert!(Request::from_json(r#"{"agent": "a", "tool": "x", "args": []}"#).is_err());
        assert!(
            Request::from_json(r#"{"agent": "a", "tool": "x", "args": {"p": 1, "p": 2}}"#).is_err()
        );
    }

    /// The request parser that fills the fields directly answers exactly as parsing the
    /// whole value strictly and then reading the fields from it would, on well-formed,
    /// duplicated, mistyped, truncated and non-object input.
    mod same_as_value_first {
        use super::super::*;
        use proptest::prelude::*;

        fn value() -> impl Strategy<Value = String> {
            let leaf = prop_oneof![
                Just("\"a\"".to_string()),
                Just("\"/x/y\"".to_string()),
                Just("1".to_string()),
                Just("2.5".to_string()),
                Just("null".to_string()),
                Just("true".to_string()),
                Just("[]".to_string()),
                Just("[\"fs:read\", 3]".to_string()),
                Just("[\"fs:read\"]".to_string()),
                Just("{\"p\": \"/x\"}".to_string()),
                Just("{\"p\": 1, \"p\": 2}".to_string()),
                Just("\"\\u00e9\"".to_string()),
            ];
            leaf
        }

        fn request() -> impl Strategy<Value = String> {
            let key = prop_oneof![
                Just("agent"),
                Just("tool"),
                Just("server"),
                Just("args"),
                Just("tool_use_id"),
                Just("permissions"),
                Just("other"),
                Just("t\\u006fol"),
            ];
            let object = proptest::collection::vec((key, value()), 0..8)
                .prop_map(|pairs| {
                    let items: Vec<String> =
                        pairs.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
                    format!("{{{}}}", items.join(", "))
                })
                .boxed();
            prop_oneof![
                4 => object.clone().boxed(),
                1 => value().boxed(),
                1 => (object, 0usize..40).prop_map(|(o, cut)| o[..cut.min(o.len())].to_string()).boxed(),
                1 => Just("{} {}".to_string()).boxed(),
            ]
        }

        proptest! {
            #[test]
            fn direct_fields_agree_with_value_first(text in request()) {
                let direct = Request::from_json(&text);
                let via_value = crate::engine::json::parse_strict(&text)
                    .map_err(|e| BadRequest { message: format!("invalid JSON: {e}"), tool_use_id: None })
                    .and_then(Request::from_value);
                prop_assert_eq!(direct, via_value, "{}", text);
            }
        }
    }
}
