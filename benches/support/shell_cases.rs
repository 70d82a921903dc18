//! The `shell` bench cases, shared by `benches/shell.rs` (time) and `benches/shell_cost.rs`
//! (allocations and instructions).
//!
//! For a 200-byte command, against a set of 20 allow patterns and a set of 10 deny patterns on
//! the same argument (each set answered in one pass over the parsed words):
//! - `allow/hit`, `allow/unreadable`: the strict reading and the allow set;
//! - `deny/clean`, `deny/chained`: the generous reading (through `&&`, pipes, `$(...)`,
//!   wrappers) and the deny set.

#![allow(dead_code)]

use toolgate::shell::{Pattern, PatternSet};

pub const ALLOW: &[&str] = &[
    "git log ...",
    "git status",
    "git diff ...",
    "git show ...",
    "git branch -={a} ...",
    "npm run test",
    "npm run lint",
    "npm run build",
    "npm ci",
    "cargo test ...",
    "cargo build ...",
    "cargo clippy ...",
    "ls ...",
    "cat *",
    "head -n * *",
    "grep -{r} ...",
    "echo ...",
    "pwd",
    "make test",
    "python3 -m pytest ...",
];

pub const DENY: &[&str] = &[
    "rm -{r} ...",
    "rm -{f} /",
    "mkfs* ...",
    "sudo ...",
    "dd ...",
    "curl ...",
    "wget ...",
    "git push -{force} ...",
    "chmod -{R} ...",
    "shred ...",
];

/// 200 bytes, one simple command.
pub const CLEAN: &str = "git log --oneline --decorate --author='Jane Doe' --since=2024-01-01 -- src/engine src/compile src/shell tests/shell.rs docs/language.md README.md Cargo.toml benches/decide.rs benches/check.rs x1234567";
/// 200 bytes, chained, with a substitution and a wrapper.
pub const CHAINED: &str = "cd /srv/app && npm ci --no-audit && npm run build -- --mode=production | tee build.log; echo \"built $(date +%s)\" && timeout 600 env NODE_ENV=production node dist/server.js --port 8080 >> run.log x1234";

/// The case names, in bench order.
pub const NAMES: &[&str] = &[
    "allow/hit",
    "allow/unreadable",
    "deny/clean",
    "deny/chained",
];

/// The allow and deny sets.
pub struct Sets {
    pub allow: PatternSet,
    pub deny: PatternSet,
}

fn set(patterns: &[&str]) -> PatternSet {
    let mut s = PatternSet::new();
    for p in patterns {
        s.add(Pattern::parse(p).expect("bench patterns parse"));
    }
    s
}

impl Sets {
    /// Builds both sets and checks the cases read as intended.
    pub fn new() -> Sets {
        assert_eq!(CLEAN.len(), 200);
        assert_eq!(CHAINED.len(), 200);
        let sets = Sets {
            allow: set(ALLOW),
            deny: set(DENY),
        };
        assert!(!sets
            .allow
            .allow_matches(CLEAN)
            .expect("readable")
            .is_empty());
        assert!(sets.deny.deny_matches(CHAINED).unreadable.is_none());
        sets
    }

    /// One case as a function (its result is whether something matched).
    pub fn case(&self, name: &str) -> Option<fn(&Sets) -> bool> {
        Some(match name {
            "allow/hit" => |s| s.allow.allow_matches(CLEAN).is_ok_and(|m| !m.is_empty()),
            "allow/unreadable" => |s| s.allow.allow_matches(CHAINED).is_ok(),
            "deny/clean" => |s| s.deny.deny_matches(CLEAN).matches.is_empty(),
            "deny/chained" => |s| s.deny.deny_matches(CHAINED).matches.is_empty(),
            _ => return None,
        })
    }
}
