#![allow(
    clippy::indexing_slicing,
    reason = "the engine indexes a program whose tables were built by compile or validated index by index when a bundle was decoded; `decide` turns a panic into an `internal_error` deny"
)]
//! The decision engine: a compiled [`Program`] answering [`Request`]s with [`Decision`]s.
//!
//! Nothing here parses a policy: the engine holds a program (built by `compile` or decoded
//! from a bundle) and its policy hash. [`decide`](Engine::decide) follows docs/language.md
//! section 11 (see `decide.rs`).

pub mod args;
mod decide;
pub mod decision;
mod evaluate;
pub mod json;
pub mod request;

use decision::Verdict;
pub use decision::{Decision, Explanation, Reason, RuleRef, RuleTrace};
pub use request::{BadRequest, Request, RequestRef};

use crate::bundle::BundleError;
use crate::program::Program;
use crate::value::JsonArgs;
use std::borrow::Cow;

/// A tool an agent may see.
///
/// # Example
///
/// ```
/// let engine = toolgate::load::engine_from_str("p.policy", "server git { tool log }\ntool t\nagent a { allow git.log }").unwrap();
/// let tools = engine.visible_tools("a").unwrap();
/// assert_eq!((tools[0].server.as_deref(), tools[0].tool.as_str()), (Some("git"), "log"));
/// assert_eq!((tools.len(), tools[0].to_string()), (1, "git.log".to_string()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VisibleTool {
    /// The server, or `None` for a host tool.
    pub server: Option<String>,
    /// The tool's name.
    pub tool: String,
}

impl VisibleTool {
    /// This tool's entry in [`tools_json`]: `{"server", "tool", "name"}`.
    ///
    /// # Example
    ///
    /// ```
    /// let t = toolgate::VisibleTool { server: Some("git".into()), tool: "log".into() };
    /// assert_eq!(t.to_json(), serde_json::json!({"server": "git", "tool": "log", "name": "git.log"}));
    /// ```
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "server": self.server,
            "tool": self.tool,
            "name": self.to_string(),
        })
    }
}

/// Serialized as [`VisibleTool::to_json`].
impl serde::Serialize for VisibleTool {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

/// The JSON form of an agent's tool listing, one shape for every host (`toolgate tools
/// --format json` and the gateway's `GET /v1/tools`): an array of `{"server", "tool", "name"}`
/// in listing order. `server` is `null` for a host tool. `name` is the line the text listing
/// prints (`git.git_log`, or a host tool's `Bash`), kept because it is the more useful field:
/// a client shows, compares or logs a tool by one string without rebuilding the `server.tool`
/// form or special-casing host tools. `server` and `tool` stay for a client that routes a
/// call: a server or tool name may itself hold a `.`, so `name` cannot be split back.
///
/// # Example
///
/// ```
/// let engine = toolgate::load::engine_from_str("p.policy", "server git { tool log }\ntool Bash\nagent a { allow git.log\n allow Bash }").unwrap();
/// let listing = toolgate::engine::tools_json(&engine.visible_tools("a").unwrap());
/// assert_eq!(listing, serde_json::json!([
///     {"server": "git", "tool": "log", "name": "git.log"},
///     {"server": null, "tool": "Bash", "name": "Bash"},
/// ]));
/// ```
pub fn tools_json(tools: &[VisibleTool]) -> serde_json::Value {
    serde_json::Value::Array(tools.iter().map(VisibleTool::to_json).collect())
}

impl std::fmt::Display for VisibleTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.server {
            Some(s) => write!(f, "{s}.{}", self.tool),
            None => f.write_str(&self.tool),
        }
    }
}

/// A compiled policy. Immutable, `Send + Sync`, cheap to share behind an `Arc`.
///
/// Build one from source with [`crate::load::engine_from_str`] or
/// [`crate::load::engine_from_sources`], or load a compiled bundle with
/// [`Engine::from_bundle`]; ask it with [`Engine::decide`].
///
/// # Example
///
/// ```
/// use toolgate::{Engine, Request};
/// let engine = toolgate::load::engine_from_str("p.policy", include_str!("../../policies/example.policy")).unwrap();
/// let shared = std::sync::Arc::new(engine);
/// let from_bundle = Engine::from_bundle(&shared.to_bundle()).unwrap();
/// let req = Request::new("reviewer", "read_file").args(serde_json::json!({"path": "/srv/a"}));
/// assert_eq!(shared.decide(&req), from_bundle.decide(&req));
/// ```
#[derive(Debug, Clone)]
pub struct Engine {
    pub(crate) program: Program,
    /// SHA-256 of the bundle payload, in hex.
    pub(crate) policy_hash: String,
}

impl Engine {
    /// Wraps a freshly compiled program: encodes it as a bundle payload (for the policy hash)
    /// and loads it back from that payload, as a host loading the bundle would. Loading back
    /// packs the tables together (compiling leaves them scattered among the memory it freed,
    /// and at 10,000 rules that made decisions on requests touching many rules up to three
    /// times slower), and it proves the bundle of this program loads.
    ///
    /// # Errors
    ///
    /// A [`BundleError`] when the compiled program fails its own validation: a compiler bug,
    /// reported rather than kept working in memory with a bundle that would not load.
    pub(crate) fn from_program(mut program: Program) -> Result<Engine, BundleError> {
        let payload = crate::bundle::payload(&program);
        // The fallback regexes (built while compiling, which is where a pattern too large for
        // them is reported) move over rather than being built twice.
        let fallbacks = program.take_fallbacks();
        // The compiled program is not needed once written: freed before the decoded one is
        // built, the two are never held at once (100,000 agents: about 75 MB each).
        drop(program);
        let program = crate::bundle::decode_payload_reusing(&payload, fallbacks)?;
        Ok(Engine {
            program,
            policy_hash: crate::bundle::payload_hash(&payload),
        })
    }

    /// Loads a compiled bundle (written by [`Engine::to_bundle`] or `toolgate compile`).
    ///
    /// The envelope's magic bytes, format version, length and SHA-256 are checked before
    /// anything is decoded, then every table and index is validated. No input makes this
    /// panic, and an engine is returned only when all of it loaded.
    ///
    /// # Errors
    ///
    /// A [`crate::bundle::BundleError`] naming what is wrong (foreign file, other format
    /// version, truncation, corruption, inconsistency).
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", "tool t\nagent a { allow t }").unwrap();
    /// let bytes = engine.to_bundle();
    /// let loaded = toolgate::Engine::from_bundle(&bytes).unwrap();
    /// assert_eq!(loaded.policy_hash(), engine.policy_hash());
    /// assert!(toolgate::Engine::from_bundle(&bytes[..bytes.len() - 1]).is_err());
    /// ```
    pub fn from_bundle(bytes: &[u8]) -> Result<Engine, BundleError> {
        let (program, policy_hash) = crate::bundle::decode(bytes)?;
        Ok(Engine {
            program,
            policy_hash,
        })
    }

    /// Writes the compiled policy as a bundle.
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", "agent a {}").unwrap();
    /// assert!(engine.to_bundle().starts_with(b"TOOLGATE"));
    /// ```
    pub fn to_bundle(&self) -> Vec<u8> {
        crate::bundle::encode(&self.program)
    }

    /// The expectations of the policy's `test` blocks (carried by bundles too).
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", include_str!("../../policies/example.policy")).unwrap();
    /// assert_eq!(engine.test_cases().len(), 28);
    /// ```
    pub fn test_cases(&self) -> &[crate::resolve::TestCase] {
        &self.program.tests
    }

    /// The SHA-256 of the compiled policy (the bundle payload), in hex: the same for a policy
    /// compiled from source and for its bundle. Every decision carries it as `policy_hash`.
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", "agent a {}").unwrap();
    /// assert_eq!(engine.policy_hash().len(), 64);
    /// ```
    pub fn policy_hash(&self) -> &str {
        &self.policy_hash
    }

    /// Decides a request. Never panics: an internal failure is a deny with `internal_error`.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolgate::Request;
    /// let engine = toolgate::load::engine_from_str("p.policy", include_str!("../../policies/example.policy")).unwrap();
    /// let d = engine.decide(&Request::new("code-assistant", "git_push").server("git").args(json!({"repo_path": "/x"})));
    /// assert_eq!(d.reason.as_str(), "permission_missing");
    /// assert_eq!(d.permission.as_deref(), Some("net:http"));
    /// ```
    pub fn decide(&self, req: &Request) -> Decision<'_> {
        self.decide_guarded(&req.borrowed(), false)
    }

    /// Decides a request whose fields and arguments are borrowed: the same decision
    /// [`decide`](Engine::decide) makes for the same values, for a host that reads its
    /// requests in place (see [`crate::value`]).
    ///
    /// ```
    /// use serde_json::json;
    /// let engine = toolgate::load::engine_from_str("p.policy", "tool t(p)\nagent a { allow t where p == \"x\" }").unwrap();
    /// let args = json!({"p": "x"});
    /// let req = toolgate::RequestRef {
    ///     agent: "a", server: None, tool: "t", args: args.as_object().unwrap(),
    ///     tool_use_id: Some("toolu_1"), permissions: None,
    /// };
    /// let d = engine.decide_ref(&req);
    /// assert!(d.is_allowed());
    /// assert_eq!(d.tool_use_id.as_deref(), Some("toolu_1"));
    /// ```
    pub fn decide_ref<'r, A: JsonArgs<'r>>(&self, req: &RequestRef<'r, A>) -> Decision<'_> {
        self.decide_guarded(req, false)
    }

    /// Decides a request and records how (`eval --explain`).
    ///
    /// ```
    /// use serde_json::json;
    /// let engine = toolgate::load::engine_from_str("p.policy", include_str!("../../policies/example.policy")).unwrap();
    /// let d = engine.decide_explained(&toolgate::Request::new("code-assistant", "Bash").args(json!({"command": "sudo ls"})));
    /// let trace = d.explanation.unwrap();
    /// assert_eq!(trace.rules.len(), 4);
    /// assert_eq!(trace.rules[3].outcome, "fired"); // `deny Bash where command matches shell "sudo ..."`
    /// ```
    pub fn decide_explained(&self, req: &Request) -> Decision<'_> {
        self.decide_guarded(&req.borrowed(), true)
    }

    /// Decides a borrowed request and records how: [`decide_explained`](Engine::decide_explained)
    /// for a [`RequestRef`].
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", "tool t\nagent a { allow t }").unwrap();
    /// let req = toolgate::Request::new("a", "t");
    /// assert!(engine.decide_ref_explained(&req.borrowed()).explanation.is_some());
    /// ```
    pub fn decide_ref_explained<'r, A: JsonArgs<'r>>(
        &self,
        req: &RequestRef<'r, A>,
    ) -> Decision<'_> {
        self.decide_guarded(req, true)
    }

    /// Decides one JSON request line; a malformed one is answered `bad_request`.
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", "tool t\nagent a { allow t }").unwrap();
    /// assert!(engine.decide_json(r#"{"agent": "a", "tool": "t"}"#, false).is_allowed());
    /// assert_eq!(engine.decide_json("not json", false).reason.as_str(), "bad_request");
    /// ```
    pub fn decide_json(&self, line: &str, explain: bool) -> Decision<'_> {
        match Request::from_json(line) {
            Ok(req) => self.decide_guarded(&req.borrowed(), explain),
            Err(bad) => self.bad_request(format!("bad request: {}", bad.message), bad.tool_use_id),
        }
    }

    /// Decides one request that is already a parsed JSON value, answering exactly as
    /// [`Engine::decide_json`] answers the value's compact JSON text, without writing or
    /// parsing that text again (see [`Request::from_json_value`]).
    ///
    /// ```
    /// use serde_json::json;
    /// let engine = toolgate::load::engine_from_str("p.policy", "tool t\nagent a { allow t }").unwrap();
    /// for v in [json!({"agent": "a", "tool": "t"}), json!({"agent": "a", "tool": 5}), json!([1])] {
    ///     assert_eq!(engine.decide_value(v.clone(), false), engine.decide_json(&v.to_string(), false));
    /// }
    /// ```
    pub fn decide_value(&self, value: serde_json::Value, explain: bool) -> Decision<'_> {
        match Request::from_json_value(value) {
            Ok(req) => self.decide_guarded(&req.borrowed(), explain),
            Err(bad) => self.bad_request(format!("bad request: {}", bad.message), bad.tool_use_id),
        }
    }

    fn decide_guarded<'r, A: JsonArgs<'r>>(
        &self,
        req: &RequestRef<'r, A>,
        explain: bool,
    ) -> Decision<'_> {
        let mut explanation = explain.then(Explanation::default);
        let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.verdict(req, &mut explanation)
        }))
        .unwrap_or_else(|_| {
            Verdict::new(
                Reason::InternalError,
                "the policy engine failed while deciding this call; it is denied",
            )
        });
        Decision {
            decision: verdict.reason.effect(),
            reason: verdict.reason,
            permission: verdict.permission,
            argument: verdict.argument,
            message: verdict.message,
            rule: verdict.rule.map(Cow::Borrowed),
            tool_use_id: req.tool_use_id.map(str::to_string),
            policy_hash: Cow::Borrowed(&self.policy_hash),
            explanation: explanation.map(Box::new),
        }
    }

    /// A `bad_request` denial for input that is not a request at all (for example a line
    /// that is not UTF-8), stamped with this engine's policy hash.
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", "agent a {}").unwrap();
    /// let d = engine.bad_request("bad request: not UTF-8", None);
    /// assert_eq!((d.reason.as_str(), &*d.policy_hash), ("bad_request", engine.policy_hash()));
    /// ```
    pub fn bad_request<'e>(
        &'e self,
        message: impl Into<Cow<'e, str>>,
        tool_use_id: Option<String>,
    ) -> Decision<'e> {
        Decision {
            policy_hash: Cow::Borrowed(&self.policy_hash),
            ..Decision::deny(Reason::BadRequest, message, tool_use_id)
        }
    }

    /// The names of the agents, in declaration order.
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", "agent a {}\nagent b {}").unwrap();
    /// assert_eq!(engine.agent_names().collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    pub fn agent_names(&self) -> impl Iterator<Item = &str> {
        self.program.agents.iter().map(|a| &*a.name)
    }

    /// True when the policy has a tool catalog.
    ///
    /// ```
    /// assert!(toolgate::load::engine_from_str("p.policy", "tool t").unwrap().has_catalog());
    /// assert!(!toolgate::load::engine_from_str("p.policy", "agent a {}").unwrap().has_catalog());
    /// ```
    pub fn has_catalog(&self) -> bool {
        self.program.catalog.is_some()
    }

    /// The tools an agent may see (LANGUAGE.md section 8), in declaration order; `None` for
    /// an unknown agent. Without a catalog the list is empty.
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", include_str!("../../policies/example.policy")).unwrap();
    /// let tools: Vec<String> = engine.visible_tools("reviewer").unwrap().iter().map(|t| t.to_string()).collect();
    /// assert_eq!(tools, ["git.git_log", "read_file"]);
    /// assert!(engine.visible_tools("nobody").is_none());
    /// ```
    pub fn visible_tools(&self, agent: &str) -> Option<Vec<VisibleTool>> {
        let (a, _) = self.program.agent(agent)?;
        let Some(cat) = &self.program.catalog else {
            return Some(Vec::new());
        };
        Some(
            cat.visible
                .row(a.index())
                .iter()
                .map(|&t| {
                    let tool = cat.tool(t);
                    VisibleTool {
                        server: tool.server().map(str::to_string),
                        tool: tool.name().to_string(),
                    }
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Engine;

    #[test]
    fn engine_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Engine>();
    }
}
