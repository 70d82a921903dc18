//! Reading a request from a host's own values: one reader for every host (the Python and
//! Node packages, the gateway), with the CLI's limits and answers.
//!
//! A host walks its value (a Python `dict`, a JS object) and reports each part to a
//! [`RequestReader`]; the reader applies the rules every host shares and the engine decides on
//! the values it read ([`tree::At`] implements [`JsonValue`](crate::value::JsonValue)), without
//! an owned copy per string. The limits are [`MAX_REQUEST_BYTES`] (the request's size as compact
//! JSON) and [`MAX_DEPTH`] (levels of arrays and objects, the request object included); a
//! refused value is named by its [`ValuePath`].

mod path;
mod reader;
pub mod tree;

pub use crate::engine::request::{MAX_DEPTH, MAX_REQUEST_BYTES};
pub use path::{Step, ValuePath};
pub use reader::{Refused, RequestReader};
pub use tree::{Args, At};

/// The request object's fields, in the order a host reads them first (the others follow in any
/// order): `tool_use_id` leads, so that a request refused for a later value still carries its id.
pub const FIELDS: [&str; 6] = [
    "tool_use_id",
    "agent",
    "tool",
    "server",
    "args",
    "permissions",
];
