//! Generated policies shared by the benches: N rules in two layouts.
//!
//! - **wide**: N tools, one `allow` rule each with a `path` glob;
//! - **deep**: one tool, N `allow` rules on the same `path` argument with different globs.
//!
//! Both have a `deny` on a `command` substring list.

#![allow(dead_code)]

/// N tools with one rule each.
pub fn wide(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!("tool t{i}(path, command?) needs fs:read\n"));
    }
    s.push_str("agent bench {\n  grant fs:*\n");
    for i in 0..n {
        s.push_str(&format!(
            "  allow t{i} where path matches \"/data/team{i}/**/*.csv\"\n"
        ));
    }
    s.push_str("  deny * where command contains any [\"rm -rf\", \"mkfs\", \"sudo \"]\n}\n");
    s
}

/// One tool with N rules on the same argument.
pub fn deep(n: usize) -> String {
    let mut s =
        String::from("tool t0(path, command?) needs fs:read\nagent bench {\n  grant fs:*\n");
    for i in 0..n {
        s.push_str(&format!(
            "  allow t0 where path matches \"/data/team{i}/**/*.csv\"\n"
        ));
    }
    s.push_str("  deny t0 where command contains any [\"rm -rf\", \"mkfs\", \"sudo \"]\n}\n");
    s
}
