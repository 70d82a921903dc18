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

/// A shape of one-rule-per-tool policies: its name, the rule's glob for tool `i`, and a value
/// that glob admits.
pub type Shape = (&'static str, fn(usize) -> String, fn(usize) -> String);

/// The shapes of `per_tool` policies.
pub const SHAPES: &[Shape] = &[
    // Sibling directories whose names are prefixes of each other (`p1`, `p10`, `p100`).
    (
        "sibling_dirs",
        |i| format!("/home/u/p{i}/**"),
        |i| format!("/home/u/p{i}/src/main.c"),
    ),
    (
        "rs_under_dir",
        |i| format!("/data/team{i}/**/*.rs"),
        |i| format!("/data/team{i}/src/lib/x.rs"),
    ),
    (
        "url_host",
        |i| format!("https://api{i}.example.com/*"),
        |i| format!("https://api{i}.example.com/v1"),
    ),
    (
        "npm_run",
        |i| format!("npm run task{i} *"),
        |i| format!("npm run task{i} --fast"),
    ),
];

/// N tools, each with one `allow` rule on `path` of the given shape.
pub fn per_tool(n: usize, glob: fn(usize) -> String) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!("tool t{i}(path) needs fs:read\n"));
    }
    s.push_str("agent bench {\n  grant fs:*\n");
    for i in 0..n {
        s.push_str(&format!(
            "  allow t{i} where path matches \"{}\"\n",
            glob(i)
        ));
    }
    s.push_str("}\n");
    s
}

/// N agents with one rule each (`allow read_file where path matches "/home/aI/**"`), on a
/// three-tool catalog: the shape of a policy with an agent per user.
pub fn agents(n: usize) -> String {
    let mut s = String::from(
        "tool read_file(path) needs fs:read\ntool write_file(path, content) needs fs:write\ntool query(sql) needs db:read\n",
    );
    for i in 0..n {
        s.push_str(&format!(
            "agent a{i} {{\n  grant fs:read\n  allow read_file where path matches \"/home/a{i}/**\"\n}}\n"
        ));
    }
    s
}

/// `agents` agents holding the same `n` short unanchored regexes with Unicode classes
/// (`\p{Latin}\w+\p{Greek}`, ...), each an `allow` on the one argument `q` of tool `search`:
/// the shape of a policy whose agents share a pattern list, and one whose patterns multiply
/// DFA states when combined.
pub fn regex_agents(n: usize, agents: usize) -> String {
    let mut s = String::from("tool search(q) needs net:http\n");
    for a in 0..agents {
        s.push_str(&format!("agent r{a} {{\n  grant net:http\n"));
        for i in 0..n {
            s.push_str(&format!(
                "  allow search where q matches re\"{}\"\n",
                unicode_regex(i)
            ));
        }
        s.push_str("}\n");
    }
    s
}

/// Scripts the generated regexes name.
const SCRIPTS: [&str; 10] = [
    "Latin",
    "Greek",
    "Cyrillic",
    "Arabic",
    "Hebrew",
    "Han",
    "Hiragana",
    "Katakana",
    "Thai",
    "Devanagari",
];

/// A short regex with Unicode classes, different for each `i` below 100.
pub fn unicode_regex(i: usize) -> String {
    let (a, b) = (SCRIPTS[i % 10], SCRIPTS[(i / 10) % 10]);
    format!("\\p{{{a}}}\\w+\\p{{{b}}}")
}

/// Tool numbers below `n` drawn by a small deterministic generator (xorshift), so every run
/// of `per_tool` (the bench and `generate_requests per_tool`) draws the same tools.
pub fn random_tools(n: usize) -> impl Iterator<Item = usize> {
    let n = n.max(1) as u64;
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    std::iter::repeat_with(move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n) as usize
    })
}
