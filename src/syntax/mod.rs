//! Text to syntax tree: the only part of toolgate that knows the grammar.
//!
//! [`parse_file`] turns one file's text into an [`ast::File`] plus diagnostics; it keeps going
//! after a syntax error so one run reports every problem it can.

pub mod ast;
mod error;
pub mod literal;
mod name;
mod parser;
pub(crate) mod same;

pub use literal::comment_start;
pub use name::{is_ident, name_text, quoted};
pub use parser::parse_file;
