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
