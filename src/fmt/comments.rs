//! Comments in the source, found outside string literals, so the printer can keep them.

use super::*;

/// A comment in the source.
#[derive(Debug, Clone)]
pub(super) struct Comment {
    pub(super) start: usize,
    pub(super) text: String,
}

pub(super) fn comments(text: &str) -> Vec<Comment> {
    let mut out = Vec::new();
    let mut off = 0;
    for line in text.split('\n') {
        if let Some(c) = comment_start(line) {
            out.push(Comment {
                start: off + c,
                text: line[c..].trim_end().to_string(),
            });
        }
        off += line.len() + 1;
    }
    out
}
