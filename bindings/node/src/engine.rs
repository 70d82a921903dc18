//! `Engine`: a compiled policy, loaded from a bundle, a path or text, asked per tool call.

use crate::decision::{TestCase, VisibleTool};
use crate::error::{self, Diagnostic};
use napi::bindgen_prelude::{Buffer, Unknown};
use napi::{Either, Env, JsValue};
use napi_derive::napi;
use std::path::PathBuf;
use std::sync::Arc;

/// A compiled policy. Immutable; decisions are made by the toolgate engine in-process.
#[napi]
pub struct Engine {
    inner: Arc<toolgate::Engine>,
    warnings: Vec<toolgate::Diagnostic>,
    sources: Option<toolgate::source::SourceMap>,
    shapes: Arc<crate::shapes::Shapes>,
}

#[napi]
impl Engine {
    /// Loads a compiled bundle (written by `toolgate compile` or `engine.toBundle()`).
    /// Throws a `BundleError` (with `code`) for a corrupt, truncated, foreign or newer bundle.
    #[napi(factory)]
    pub fn from_bundle(env: Env, bytes: Buffer) -> napi::Result<Engine> {
        toolgate::Engine::from_bundle(&bytes)
            .map(Engine::new)
            .map_err(|e| error::bundle_error(&env, &e, None))
    }

    /// Compiles policy text; `filename` (default `inline.policy`) names it in diagnostics.
    /// Throws a `PolicyError` whose `message` is the rendered report and whose `diagnostics`
    /// list every problem.
    #[napi(factory)]
    pub fn from_source(env: Env, text: String, filename: Option<String>) -> napi::Result<Engine> {
        let name = filename.unwrap_or_else(|| "inline.policy".to_string());
        toolgate::load::engine_from_str(&name, &text)
            .map(Engine::new)
            .map_err(|e| error::policy_error(&env, &e))
    }

    /// Loads what a toolgate command line would: a bundle file, a `.policy` file, a folder of
    /// them, or several paths merged into one policy. Throws a `PolicyError`, a `BundleError`
    /// or an `Error` with code `TOOLGATE_IO`.
    #[napi(factory)]
    pub fn load(env: Env, path: Either<String, Vec<String>>) -> napi::Result<Engine> {
        let paths: Vec<PathBuf> = match path {
            Either::A(p) => vec![PathBuf::from(p)],
            Either::B(ps) => ps.into_iter().map(PathBuf::from).collect(),
        };
        match toolgate::load::engine_from_paths(&paths) {
            Ok(loaded) => Ok(Engine {
                inner: Arc::new(loaded.engine),
                warnings: loaded.warnings.sorted().into_iter().cloned().collect(),
                sources: loaded.policy.map(|p| p.sources),
                shapes: Default::default(),
            }),
            Err(e) => Err(error::load_failure(&env, &e)),
        }
    }

    fn new(engine: toolgate::Engine) -> Engine {
        Engine {
            inner: Arc::new(engine),
            warnings: Vec::new(),
            sources: None,
            shapes: Default::default(),
        }
    }

    /// Decides one tool call. `request` is the CLI's request object (`agent`, `tool`,
    /// `server?`, `args?`, `tool_use_id`/`toolUseId`?, `permissions?`); the answer has the CLI's
    /// decision fields. Never throws: a value JSON cannot hold, or a malformed request, is a
    /// `bad_request` denial. `explain` (`true`; any other value is `false`) adds an
    /// `explanation`, as `eval --explain` does.
    #[napi(
        ts_args_type = "request: Request, explain?: boolean",
        ts_return_type = "Decision"
    )]
    pub fn decide(
        &self,
        env: Env,
        request: Unknown,
        explain: Option<Unknown>,
    ) -> napi::Result<crate::output::Raw> {
        let d = self.decision(&env, request, explain);
        // SAFETY: the environment is this call's.
        unsafe { crate::output::decision(env.raw(), &d) }
    }

    /// The same decision as `decide`, for `toolgate.js`: the request's fields come read
    /// (`shape`: 0 a plain object, 1 not an object, 2 not plain, 3 reading threw), and
    /// `build` makes the decision object (see `output::through`). JS property reads and an
    /// object literal cost a fraction of the same work through Node-API.
    #[napi(skip_typescript, js_name = "decideWith")]
    #[allow(clippy::too_many_arguments)]
    pub fn decide_with(
        &self,
        env: Env,
        shape: u32,
        tool_use_id: Unknown,
        tool_use_id_camel: Unknown,
        agent: Unknown,
        tool: Unknown,
        server: Unknown,
        args: Unknown,
        permissions: Unknown,
        explain: bool,
        build: Unknown,
        object_prototype: Unknown,
    ) -> napi::Result<crate::output::Raw> {
        use crate::request::Shape;
        let shape = match shape {
            0 => Shape::Plain,
            1 => Shape::NotObject,
            2 => Shape::NotPlain,
            _ => Shape::Threw,
        };
        let values = [
            tool_use_id.raw(),
            tool_use_id_camel.raw(),
            agent.raw(),
            tool.raw(),
            server.raw(),
            args.raw(),
            permissions.raw(),
        ];
        // SAFETY: the environment and the values are this call's.
        let parsed = unsafe {
            crate::request::read_fields(env.raw(), shape, &values, object_prototype.raw())
        };
        let d = self.decided(parsed, explain);
        // SAFETY: as above.
        unsafe { crate::output::through(env.raw(), &d, build.raw()) }
    }

    /// A function `(text) => number` deciding requests of this engine given as JSON text,
    /// for `toolgate.js` (see `decider.rs`): `2 * shape + id`, or -1 when `decideWith` must
    /// answer; `decisionShape` gives a shape's fields.
    #[napi(skip_typescript, js_name = "jsonDecider")]
    pub fn json_decider(&self, env: Env) -> napi::Result<crate::output::Raw> {
        let bound = crate::decider::Bound {
            engine: Arc::clone(&self.inner),
            shapes: Arc::clone(&self.shapes),
        };
        // SAFETY: the environment is this call's.
        unsafe { crate::decider::function(env.raw(), bound) }
    }

    /// Shape `number` of a `jsonDecider` function's answers, handed to `build` as `decideWith` hands a
    /// decision (with `tool_use_id` `null`); what `build` returns.
    #[napi(skip_typescript, js_name = "decisionShape")]
    pub fn decision_shape(
        &self,
        env: Env,
        number: u32,
        build: Unknown,
    ) -> napi::Result<crate::output::Raw> {
        let d = self
            .shapes
            .get(number)
            .ok_or_else(|| napi::Error::from_reason(format!("no decision shape {number}")))?;
        // SAFETY: the environment and `build` are this call's.
        unsafe { crate::output::through(env.raw(), &d, build.raw()) }
    }

    /// Reads the request and decides it; a request that cannot be read is a `bad_request`.
    fn decision(
        &self,
        env: &Env,
        request: Unknown,
        explain: Option<Unknown>,
    ) -> toolgate::Decision<'_> {
        // SAFETY: the environment and the values are those of the calling napi function.
        let explain =
            explain.is_some_and(|e| unsafe { crate::request::is_true(env.raw(), e.raw()) });
        // SAFETY: as above.
        let parsed = unsafe { crate::request::read_request(env.raw(), request.raw()) };
        self.decided(parsed, explain)
    }

    /// Decides a request read from JS; one that could not be read is a `bad_request`.
    fn decided(
        &self,
        parsed: Result<toolgate::Request, toolgate::engine::BadRequest>,
        explain: bool,
    ) -> toolgate::Decision<'_> {
        match parsed {
            Ok(req) if explain => self.inner.decide_explained(&req),
            Ok(req) => self.inner.decide(&req),
            Err(bad) => self
                .inner
                .bad_request(format!("bad request: {}", bad.message), bad.tool_use_id),
        }
    }

    /// The tools `agent` may see, in declaration order (`toolgate tools`); `null` for an
    /// unknown agent. Empty for a policy without a catalog.
    #[napi]
    pub fn tools(&self, agent: String) -> Option<Vec<VisibleTool>> {
        self.inner.visible_tools(&agent).map(|tools| {
            tools
                .into_iter()
                .map(|t| VisibleTool {
                    name: t.to_string(),
                    server: t.server,
                    tool: t.tool,
                })
                .collect()
        })
    }

    /// SHA-256 of the compiled policy, in hex; every decision carries it as `policy_hash`.
    #[napi(getter)]
    pub fn policy_hash(&self) -> String {
        self.inner.policy_hash().to_string()
    }

    /// The agents' names, in declaration order.
    #[napi(getter)]
    pub fn agents(&self) -> Vec<String> {
        self.inner.agent_names().map(str::to_string).collect()
    }

    /// The warnings found while compiling source loaded with `Engine.load` (empty otherwise).
    #[napi(getter)]
    pub fn warnings(&self) -> Vec<Diagnostic> {
        match &self.sources {
            Some(sources) => {
                let mut diags = toolgate::Diagnostics::new();
                diags.extend(self.warnings.iter().cloned());
                error::diagnostics(&diags, sources)
            }
            None => Vec::new(),
        }
    }

    /// The compiled policy as bundle bytes (what `toolgate compile` writes).
    #[napi]
    pub fn to_bundle(&self) -> Buffer {
        self.inner.to_bundle().into()
    }

    /// The expectations of the policy's `test` blocks (bundles carry them too), each with the
    /// request it makes.
    #[napi]
    pub fn test_cases(&self) -> Vec<TestCase> {
        self.inner
            .test_cases()
            .iter()
            .map(|c| {
                let req = c.request();
                let mut obj = serde_json::Map::new();
                obj.insert("agent".into(), req.agent.into());
                obj.insert("tool".into(), req.tool.into());
                if let Some(s) = req.server {
                    obj.insert("server".into(), s.into());
                }
                obj.insert("args".into(), serde_json::Value::Object(req.args));
                if let Some(p) = req.permissions {
                    obj.insert("permissions".into(), p.into());
                }
                TestCase {
                    block: c.block.clone(),
                    expect: c.expect.as_str().to_string(),
                    reason: c.reason.clone(),
                    request: serde_json::Value::Object(obj),
                    location: format!(
                        "{}:{}:{}",
                        c.location.file, c.location.line, c.location.column
                    ),
                }
            })
            .collect()
    }
}
