//! `Engine`: a compiled policy, loaded from a bundle, a path or text, asked per tool call.

use crate::decision::{TestCase, VisibleTool};
use crate::error::{self, Diagnostic};
use crate::request::{Answer, Decider};
use napi::bindgen_prelude::{Buffer, Function, Unknown};
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
            Ok(loaded) => {
                let mut engine = Engine::new(loaded.engine);
                engine.warnings = loaded.warnings.sorted().into_iter().cloned().collect();
                engine.sources = loaded.policy.map(|p| p.sources);
                Ok(engine)
            }
            Err(e) => Err(error::load_failure(&env, &e)),
        }
    }

    fn new(engine: toolgate::Engine) -> Engine {
        Engine {
            inner: Arc::new(engine),
            warnings: Vec::new(),
            sources: None,
        }
    }

    /// The function `toolgate.js`'s `decide` calls (see [`Decider`]), bound to this engine.
    /// A plain JS function made from a closure: calling it skips the receiver unwrapping and
    /// borrow bookkeeping of a class method, which cost more than reading a small request.
    #[napi(skip_typescript)]
    pub fn decider<'env>(&self, env: &'env Env) -> napi::Result<Unknown<'env>> {
        let decider = Decider::new(Arc::clone(&self.inner));
        let f: Function<'env, Unknown<'env>, Answer> =
            env.create_function_from_closure("decide", move |ctx| decider.call(&ctx))?;
        Ok(f.to_unknown())
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
