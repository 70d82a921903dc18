//! Errors thrown to JS: a policy with errors (`PolicyError`, with its diagnostics as data),
//! an unreadable bundle (`BundleError`, with its code), and files that cannot be read.

use napi::{Env, JsValue, Status};
use toolgate::load::LoadFailure;
use toolgate::source::SourceMap;

/// One diagnostic of a policy: what `toolgate check` reports, as data.
#[napi_derive::napi(object, use_nullable = true)]
pub struct Diagnostic {
    /// The stable code, such as `toolgate::unknown_tool`.
    pub code: String,
    /// `error` or `warning`.
    pub severity: String,
    /// What is wrong.
    pub message: String,
    /// The file the problem is in.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// The label under the span.
    pub label: String,
    /// How to fix it, when known.
    pub help: Option<String>,
}

/// The diagnostics of a policy, in the order the CLI reports them.
pub fn diagnostics(diags: &toolgate::Diagnostics, sources: &SourceMap) -> Vec<Diagnostic> {
    diags
        .sorted()
        .into_iter()
        .map(|d| {
            let at = sources.location(d.span);
            Diagnostic {
                code: d.code.to_string(),
                severity: d.severity.as_str().to_string(),
                message: d.message.clone(),
                file: at.file,
                line: u32::try_from(at.line).unwrap_or(u32::MAX),
                column: u32::try_from(at.column).unwrap_or(u32::MAX),
                label: d.label.clone(),
                help: d.help.clone(),
            }
        })
        .collect()
}

/// A JS `Error` named `name` with `message`, `code` and, when given, `diagnostics`; returned
/// as the error a napi function throws.
fn thrown(
    env: &Env,
    name: &str,
    code: &str,
    message: String,
    diagnostics: Option<Vec<Diagnostic>>,
) -> napi::Error {
    let build = || -> napi::Result<napi::Error> {
        let mut err =
            env.create_error(napi::Error::new(Status::GenericFailure, message.clone()))?;
        err.set("name", name)?;
        err.set("code", code)?;
        if let Some(d) = diagnostics {
            err.set("diagnostics", d)?;
        }
        Ok(napi::Error::from(err.to_unknown()))
    };
    build().unwrap_or_else(|e| e)
}

/// The error for a policy that did not compile.
pub fn policy_error(env: &Env, e: &toolgate::PolicyError) -> napi::Error {
    thrown(
        env,
        "PolicyError",
        "TOOLGATE_POLICY_ERROR",
        e.to_string(),
        Some(diagnostics(&e.diagnostics, &e.sources)),
    )
}

/// The error for a bundle that could not be loaded.
pub fn bundle_error(
    env: &Env,
    e: &toolgate::bundle::BundleError,
    path: Option<&str>,
) -> napi::Error {
    let message = match path {
        Some(p) => format!("{p}: {e} [{}]", e.code()),
        None => format!("{e} [{}]", e.code()),
    };
    thrown(env, "BundleError", e.code(), message, None)
}

/// The error for whatever `toolgate::load::engine_from_paths` refused.
pub fn load_failure(env: &Env, e: &LoadFailure) -> napi::Error {
    match e {
        LoadFailure::Io(io) => thrown(env, "Error", "TOOLGATE_IO", io.to_string(), None),
        LoadFailure::Bundle { path, error } => {
            bundle_error(env, error, Some(&path.display().to_string()))
        }
        LoadFailure::Policy(p) => policy_error(env, p),
    }
}
