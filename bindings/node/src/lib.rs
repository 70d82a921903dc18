//! toolgate for Node.js: the compiled policy engine as a native addon (napi-rs).
//!
//! The addon exposes `Engine` (load a bundle, a `.policy` file or folder, or policy text;
//! decide a request object; list an agent's tools), `PermissionSet` (Hermes' immutable grant
//! set) and the pieces the hand-written wrappers in `toolgate.js` build the drop-in host shapes
//! from. Every decision is made by the `toolgate` crate; nothing here decides.

mod decision;
mod engine;
mod error;
mod permissions;
mod request;
mod shapes;

/// The addon's allocator: reading a request allocates and frees a handful of small strings,
/// which mimalloc's thread-local free lists serve in a fraction of the instructions the system
/// allocator takes. Only this addon's own Rust code uses it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub use decision::{Decision, Request, Rule, TestCase, VisibleTool};
pub use engine::Engine;
pub use error::Diagnostic;
pub use permissions::{permission_denied_message, PermissionSet};

#[cfg(test)]
mod tests {
    /// `lib/names.js`'s `splitToolName` (kept in JS: a tool name with a lone surrogate stays
    /// exact there) and the library's `split_tool_name` agree on one table of names
    /// (`test/tool-names.json`, which `test/callbacks.test.js` checks the JS side against).
    #[test]
    fn tool_names_split_as_the_table_says() {
        type Row = (String, Option<String>, Option<String>, String);
        let rows: Vec<Row> = serde_json::from_str(include_str!("../test/tool-names.json")).unwrap();
        assert!(rows.len() > 10);
        for (name, hint, server, tool) in &rows {
            let got = toolgate::host::split_tool_name(name, hint.as_deref());
            assert_eq!(got, (server.as_deref(), tool.as_str()), "{name} {hint:?}");
        }
    }
}
