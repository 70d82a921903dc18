//! `toolgate test PATH... [--coverage [--min PERCENT] [--format text|json]]`: run the policies'
//! `test` blocks and, with `--coverage`, report which rules they exercise (docs/review.md).

use super::{load_engine, print_diagnostics, Exit};
use serde_json::{json, Value};
use std::path::PathBuf;
use toolgate::testing::coverage::{Coverage, How, RuleCoverage, Status, Tally};

/// Output format of `test --coverage`.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// The test summary, then coverage per agent and the uncovered rules, for terminals
    Text,
    /// One JSON object with the test counts and every rule's coverage, for tools
    Json,
}

/// Arguments of `test`.
#[derive(clap::Args)]
pub struct Args {
    /// Policy files or folders of `.policy` files (merged into one policy), or one bundle
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Also report which rules no test exercises, per agent and overall
    #[arg(long)]
    coverage: bool,
    /// With --coverage: exit 1 when the overall coverage is below PERCENT (0 to 100)
    #[arg(long, value_name = "PERCENT", requires = "coverage", value_parser = parse_percent)]
    min: Option<f64>,
    /// With --coverage: output format
    #[arg(long, value_enum, default_value = "text", requires = "coverage")]
    format: Format,
}

/// A percentage from 0 to 100, with or without a trailing `%`.
fn parse_percent(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches('%');
    match number.parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(format!("`{text}` is not a percentage from 0 to 100")),
    }
}

/// Runs `test`.
pub fn run(args: Args) -> Exit {
    let (engine, policy) = match load_engine(&args.paths) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let (passed, failed) = match &policy {
        Some(policy) => {
            let report = toolgate::testing::run_tests(policy, &engine);
            print_diagnostics(&report.failures, &policy.sources);
            (report.passed, report.failed)
        }
        None => {
            let (passed, failures) = toolgate::testing::run_compiled_tests(&engine);
            for f in &failures {
                eprintln!("error[toolgate::test_failed]: {f}");
            }
            (passed, failures.len())
        }
    };
    let tests_exit = if failed > 0 { Exit::Failure } else { Exit::Ok };
    if !args.coverage {
        println!("{passed} passed, {failed} failed");
        return tests_exit;
    }
    let coverage = toolgate::testing::coverage::coverage(&engine);
    let overall = coverage.overall();
    let below_min = args.min.is_some_and(|min| !overall.meets(min));
    match args.format {
        Format::Text => print!(
            "{passed} passed, {failed} failed\n{}",
            text(&coverage, overall)
        ),
        Format::Json => println!(
            "{}",
            report_json(&coverage, overall, (passed, failed), args.min)
        ),
    }
    if let (Some(min), true) = (args.min, below_min) {
        eprintln!(
            "error: rule coverage {}% ({} of {} rules) is below the minimum of {min}%",
            overall.percent(),
            overall.covered,
            overall.total
        );
        return Exit::Failure;
    }
    tests_exit
}

/// `covered/total  percent%`, and the unreachable count when there are some.
fn tally_text(t: Tally) -> String {
    let mut s = format!(
        "{:>7}  {:>5.1}%",
        format!("{}/{}", t.covered, t.total),
        t.percent()
    );
    if t.unreachable > 0 {
        s.push_str(&format!("  ({} unreachable)", t.unreachable));
    }
    s
}

/// `FILE:LINE:COLUMN: AGENT: RULE TEXT`
fn rule_line(r: &RuleCoverage) -> String {
    let at = &r.rule;
    format!(
        "{}:{}:{}: {}: {}",
        at.file, at.line, at.column, at.agent, r.text
    )
}

/// The coverage report for a terminal.
fn text(coverage: &Coverage, overall: Tally) -> String {
    let mut out = format!(
        "rule coverage: {} of {} rules ({:.1}%)\n",
        overall.covered,
        overall.total,
        overall.percent()
    );
    let agents = coverage.per_agent();
    let width = agents.iter().map(|(a, _)| a.len()).max().unwrap_or(0);
    for (agent, t) in &agents {
        out.push_str(&format!("  {agent:<width$}  {}\n", tally_text(*t)));
    }
    let uncovered: Vec<&RuleCoverage> = coverage.uncovered().collect();
    if !uncovered.is_empty() {
        out.push_str(&format!("uncovered rules ({}):\n", uncovered.len()));
        for r in uncovered {
            out.push_str(&format!("  {}\n", rule_line(r)));
        }
    }
    let unreachable: Vec<&RuleCoverage> = coverage.unreachable().collect();
    if !unreachable.is_empty() {
        out.push_str(&format!(
            "unreachable rules, not counted ({}):\n",
            unreachable.len()
        ));
        for r in unreachable {
            if let Status::Unreachable(why) = &r.status {
                out.push_str(&format!("  {}\n    {why}\n", rule_line(r)));
            }
        }
    }
    out
}

fn tally_json(t: Tally) -> Value {
    json!({
        "covered": t.covered,
        "total": t.total,
        "unreachable": t.unreachable,
        "percent": t.percent(),
    })
}

fn rule_json(r: &RuleCoverage) -> Value {
    let (status, covered_by, why) = match &r.status {
        Status::Covered(by) => {
            let (how, condition) = match &by.how {
                How::Decided => ("decided", None),
                How::FailedCondition(c) => ("failed_condition", Some(c)),
            };
            let by = json!({
                "test": by.test,
                "file": by.location.file,
                "line": by.location.line,
                "column": by.location.column,
                "how": how,
                "condition": condition,
            });
            ("covered", by, None)
        }
        Status::Uncovered => ("uncovered", Value::Null, None),
        Status::Unreachable(why) => ("unreachable", Value::Null, Some(why)),
    };
    json!({
        "agent": r.rule.agent,
        "effect": r.rule.effect.as_str(),
        "target": r.rule.target,
        "text": r.text,
        "file": r.rule.file,
        "line": r.rule.line,
        "column": r.rule.column,
        "status": status,
        "covered_by": covered_by,
        "unreachable_because": why,
    })
}

/// The coverage report for tools (the shape is documented in docs/review.md).
fn report_json(
    coverage: &Coverage,
    overall: Tally,
    (passed, failed): (usize, usize),
    min: Option<f64>,
) -> Value {
    let mut report = json!({
        "tests": { "passed": passed, "failed": failed },
        "min": min,
        "below_min": min.is_some_and(|m| !overall.meets(m)),
        "agents": coverage.per_agent().into_iter().map(|(agent, t)| {
            let mut a = json!({ "agent": agent });
            merge(&mut a, tally_json(t));
            a
        }).collect::<Vec<_>>(),
        "rules": coverage.rules.iter().map(rule_json).collect::<Vec<_>>(),
    });
    merge(&mut report, tally_json(overall));
    report
}

/// Adds the fields of object `extra` to object `into`.
fn merge(into: &mut Value, extra: Value) {
    if let (Value::Object(into), Value::Object(extra)) = (into, extra) {
        into.extend(extra);
    }
}
