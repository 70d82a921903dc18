//! `toolgate check` on a generated 10,000-rule policy, redundancy analysis included.
//!
//! The policy: 20 servers of 50 tools (1,000 tools), 100 agents of 100 rules each. Every
//! agent has path allows on its own team folders (some nested inside others, so that
//! `redundant_allow` has work), literal, regex and numeric conditions, server-wide glob
//! targets, and denies with substring lists. Two measurements:
//!
//! - `check/10000`: parse, resolve, compile and every lint (what `toolgate check` runs);
//! - `lint/10000`: the lints alone, on the resolved policy.
//!
//! And `check` of two shapes of the engine-hardening issue, 10,000 rules of one agent on one
//! argument, each `re"(?i)^select\s+[\w, ]{1,40}\s+from\s+t{i}_\w+"` (Unicode classes under
//! case folding, no literal a coverage index could key on): `check/select-deny/10000` with
//! `deny` rules and `check/select-allow/10000` with `allow` rules (which the coverage lints
//! compare pairwise until their budget is spent, then report as undecided).
//!
//! Run: `cargo bench --bench check`.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::time::Duration;
use toolgate::source::SourceMap;

const SERVERS: usize = 20;
const TOOLS_PER_SERVER: usize = 50;
const AGENTS: usize = 100;
const RULES_PER_AGENT: usize = 100;

/// The generated policy text.
pub fn policy() -> String {
    let mut s = String::new();
    for i in 0..SERVERS {
        s.push_str(&format!("server s{i} {{\n"));
        for j in 0..TOOLS_PER_SERVER {
            let needs = if j % 5 == 0 { "net:http" } else { "fs:read" };
            s.push_str(&format!(
                "  tool t{j}(path, command?, mode?, n?) needs {needs}\n"
            ));
        }
        s.push_str("}\n");
    }
    for a in 0..AGENTS {
        s.push_str(&format!("agent a{a} {{\n  grant fs:*, net:http\n"));
        for r in 0..RULES_PER_AGENT {
            // Rules come in groups of ten on one tool and one team folder.
            let server = (a + r / 10) % SERVERS;
            let tool = (a * 7 + r / 10) % TOOLS_PER_SERVER;
            let team = r / 10;
            let rule = match r % 10 {
                0 => format!("allow s{server}.t{tool} where path matches \"/data/a{a}/team{team}/**\""),
                1 => format!("allow s{server}.t{tool} where path matches \"/data/a{a}/team{team}/reports/*.csv\""),
                2 => format!("allow s{server}.t{tool} where path == \"/data/a{a}/team{team}/x.txt\" and mode == \"ro\""),
                3 => format!("allow s{server}.t{tool} where command matches re\"^git (log|status)( |$)\" and n <= {r}"),
                4 => format!("allow s{server}.* where path matches \"/shared/a{a}/{team}/**\""),
                5 => format!("allow s{server}.t{tool} where mode in [\"ro\", \"rw\"] and n < 100"),
                6 => format!("deny  s{server}.t{tool} where command contains any [\"rm -rf\", \"sudo \"]"),
                7 => format!("allow s{server}.t{tool} where path matches \"/data/a{a}/team{team}/**/*.json\""),
                8 => format!("deny  s{server}.* where path matches \"/data/a{a}/team{team}/secret/**\""),
                _ => format!("allow s{server}.t{tool} where path matches \"/srv/a{a}/r{r}/*\" and mode != \"admin\""),
            };
            s.push_str("  ");
            s.push_str(&rule);
            s.push('\n');
        }
        s.push_str("}\n");
    }
    s
}

/// The generated 10,000-rule `select` policy, with rules of `effect` (`allow` or `deny`).
pub fn select_policy(effect: &str) -> String {
    let mut s = String::from("tool t(p)\nagent a {\n");
    for i in 0..10_000 {
        s.push_str(&format!(
            "  {effect} t where p matches re\"(?i)^select\\s+[\\w, ]{{1,40}}\\s+from\\s+t{i}_\\w+\"\n"
        ));
    }
    s.push_str("}\n");
    s
}

fn sources(text: &str) -> SourceMap {
    let mut sources = SourceMap::new();
    sources.add("bench.policy", text);
    sources
}

fn bench_check(c: &mut Criterion) {
    let text = policy();
    let (policy, diags) = toolgate::load::check_sources(sources(&text));
    assert!(
        !diags.has_errors(),
        "{}",
        diags.render(&policy.sources, false, 100)
    );
    assert!(
        diags.iter().any(|d| d.code == "toolgate::redundant_allow"),
        "the generated policy exercises the redundancy analysis"
    );
    let mut group = c.benchmark_group("check");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("check/10000", |b| {
        b.iter(|| toolgate::load::check_sources(black_box(sources(&text))))
    });
    let (resolved, _) = toolgate::load::policy_from_sources(sources(&text));
    group.bench_function("lint/10000", |b| {
        b.iter(|| toolgate::lint::run(black_box(&resolved), &[]))
    });
    for effect in ["deny", "allow"] {
        let text = select_policy(effect);
        let (policy, diags) = toolgate::load::check_sources(sources(&text));
        assert!(
            !diags.has_errors(),
            "{}",
            diags.render(&policy.sources, false, 100)
        );
        group.bench_function(format!("check/select-{effect}/10000"), |b| {
            b.iter(|| toolgate::load::check_sources(black_box(sources(&text))))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_check);
criterion_main!(benches);
