//! One file per lint. Each file's doc comment is the lint's user documentation.

pub mod alternatives_hide_path;
pub mod dead_allow;
pub mod deny_never_fires;
pub mod duplicate_definition;
pub mod duplicate_permission;
pub mod invalid_glob;
pub mod invalid_regex;
pub mod needs_ignored;
pub mod pointless_allow;
pub mod redundant_allow;
pub mod redundant_grant;
pub mod relative_glob_in_allow;
pub mod substring_allow;
pub mod target_matches_nothing;
pub mod unanchored_regex;
pub mod unknown_argument;
pub mod unknown_lint;
pub mod unknown_name_in_test;
pub mod unknown_server;
pub mod unknown_tool;
pub mod unreachable_rule;
pub mod unsatisfiable_condition;
pub mod unused_grant;
pub mod unused_suppression;
pub mod wildcard_domain;
