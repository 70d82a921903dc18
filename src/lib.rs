//! # toolgate
//!
//! toolgate decides whether an AI agent may make a tool call. Policies are written in the
//! `.policy` language (see `docs/language.md`), checked and compiled into an [`Engine`] built
//! on interned IDs, bitsets and multi-pattern automata, and asked before every call.
//!
//! ## The pipeline
//!
//! | stage | module | what it does |
//! | --- | --- | --- |
//! | load | [`load`] | reads files and folders into a [`source::SourceMap`] |
//! | syntax | [`syntax`] | text to syntax tree (pest), syntax diagnostics |
//! | pattern | [`pattern`] | globs, path normalization, regex limits (below every stage) |
//! | value | [`value`] | the JSON a decision reads, owned or borrowed (below every stage) |
//! | resolve | [`resolve`] | names, catalog, grants, patterns validated, test expectations |
//! | compile | [`compile`] | resolved policy to a [`program::Program`] in named steps |
//! | program | [`program`] | the compiled tables (interned IDs, grant bitsets, rule groups, automata), each with its validation; opaque to hosts |
//! | bundle | [`bundle`] | a program in a versioned, checksummed envelope |
//! | engine | [`engine`] | holds a program; [`Request`] to [`Decision`] |
//! | lint | [`lint`] | `check`'s analyses: unreachable, redundant and dead rules, risky patterns |
//! | testing | [`testing`] | runs a policy's `test` blocks, and measures which rules they cover |
//! | review | [`review`] | effective permissions (`matrix`) and semantic differences (`diff`) |
//! | fmt | [`fmt`] | canonical formatting, checked by re-parsing |
//!
//! Every public module is API, documented here and in `docs/assurance.md` ("Library API");
//! each stage's own machinery (parser internals, compile steps, table types, lint rules) is
//! private to the crate.
//!
//! ## Example
//!
//! ```
//! use toolgate::{Engine, Request};
//! use serde_json::json;
//!
//! let engine = toolgate::load::engine_from_str("inline.policy", r#"
//!     tool read_file(path) needs fs:read
//!     agent bot {
//!       grant fs:read
//!       allow read_file where path matches "/srv/**"
//!     }
//! "#).unwrap();
//! let ok = engine.decide(&Request::new("bot", "read_file").args(json!({"path": "/srv/a.txt"})));
//! assert!(ok.is_allowed());
//! let no = engine.decide(&Request::new("bot", "read_file").args(json!({"path": "/srv/../etc/passwd"})));
//! assert_eq!(no.reason.as_str(), "no_matching_rule");
//! ```

// `missing_docs` and `unsafe_code` are denied for every crate of the workspace (Cargo.toml).
// Library code never unwraps, expects, panics or indexes out of bounds on what a user
// controls: errors are values and a decision fails closed. (Tests are separate crates or
// `cfg(test)`, and may.) Indexing is allowed, module by module with the reason, only on the
// compiled tables (program, compile, engine, bundle): a loaded bundle is validated index by
// index before it answers, compile creates the indices it uses, and `decide` turns any panic
// into an `internal_error` deny. Elsewhere a lookup is a `get`, an iterator or a pattern, or a
// function's allow says why its index is in bounds.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod bundle;
pub mod diagnostic;
pub mod engine;
pub mod fmt;
pub mod host;
pub mod load;
pub mod pattern;
pub mod program;
pub mod reason;
pub mod resolve;
pub mod review;
/// Shell-aware command matching for `ARG matches shell "PATTERN"`.
pub mod shell;
pub mod source;
pub mod testing;
pub mod value;

pub mod compile;
pub mod lint;
pub mod syntax;

pub use diagnostic::{Diagnostic, Diagnostics, PolicyError, Severity};
pub use engine::{Decision, Engine, Reason, Request, RequestRef, RuleRef, VisibleTool};
pub use syntax::ast::Effect;
