//! `toolgate diff OLD NEW`: the agents and tools whose decisions differ between two policies,
//! each with a witness request, and a gate for CI (`--fail-on widen|any`).

use super::{load_engine, Exit};
use std::io::Write;
use std::path::{Path, PathBuf};
use toolgate::review::diff::{diff, Budget, PairDiff, Report, Side, SideDecision};

/// Output format of `diff`.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// One block per agent and tool: the change, then each witness and both decisions
    Text,
    /// `{"differences": [...], "compared": N}` (docs/review.md)
    Json,
}

/// When `diff` exits 1.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum FailOn {
    /// NEW allows a request OLD denies, or a pair is undecided
    Widen,
    /// Any difference, or an undecided pair
    Any,
}

/// Arguments of `diff`.
#[derive(clap::Args)]
pub struct Args {
    /// The old policy: a file, a folder of `.policy` files, or a compiled bundle
    old: PathBuf,
    /// The new policy: a file, a folder of `.policy` files, or a compiled bundle
    new: PathBuf,
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Exit 1 when the policies differ this way (undecided pairs count as widening)
    #[arg(long, value_enum)]
    fail_on: Option<FailOn>,
    /// Candidate requests decided per agent and tool before giving up
    #[arg(long, default_value_t = Budget::default().candidates)]
    max_candidates: usize,
    /// Automaton states explored per argument before giving up
    #[arg(long, default_value_t = Budget::default().states)]
    max_states: usize,
}

/// The engine and resolved policy of a file, folder or bundle: a bundle's policy is rebuilt
/// from its program ([`toolgate::review::decompile`]), and its own engine decides.
fn load(path: &Path) -> Result<(toolgate::Engine, toolgate::resolve::Policy), Exit> {
    let (engine, policy) = load_engine(&[path.to_path_buf()])?;
    match policy {
        Some(p) => Ok((engine, p)),
        None => match toolgate::review::decompile::decompile(&engine) {
            Ok(back) => Ok((engine, back.policy)),
            Err(refusal) => {
                eprintln!(
                    "error: {}: the bundle cannot be reviewed: {refusal}",
                    path.display()
                );
                Err(Exit::Usage)
            }
        },
    }
}

/// Runs `diff`.
pub fn run(args: Args) -> Exit {
    let (old_engine, old) = match load(&args.old) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let (new_engine, new) = match load(&args.new) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let budget = Budget {
        states: args.max_states,
        candidates: args.max_candidates,
    };
    let report = diff(
        Side {
            policy: &old,
            engine: &old_engine,
        },
        Side {
            policy: &new,
            engine: &new_engine,
        },
        &budget,
    );
    let text = match args.format {
        Format::Text => text(&report),
        // Through a `Value`: its keys are sorted, which the documented shape follows.
        Format::Json => match serde_json::to_value(&report) {
            Ok(value) => format!("{value}\n"),
            Err(e) => {
                eprintln!("error: writing the differences as JSON: {e}");
                return Exit::Usage;
            }
        },
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("error: writing the differences: {e}");
            return Exit::Usage;
        }
    }
    let fails = match args.fail_on {
        None => false,
        Some(FailOn::Widen) => report.may_widen(),
        Some(FailOn::Any) => !report.is_empty(),
    };
    if fails {
        Exit::Failure
    } else {
        Exit::Ok
    }
}

/// `text` with every character a terminal would act on or hide written as a JSON escape
/// (`\u001b`, `\u009b`): control characters (C0, DEL, C1), bidirectional controls and the
/// line and paragraph separators. In a witness (JSON text, where such characters can only be
/// inside strings) the escape reads back as the same character, so the printed request
/// still decides as the witness did.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let hidden = c.is_control()
            || matches!(
                c,
                '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}'
            )
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c);
        if hidden {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn side_text(d: &SideDecision) -> String {
    match &d.rule {
        Some(r) => format!("{} ({}, {r})", d.decision.as_str(), d.reason),
        None => format!("{} ({})", d.decision.as_str(), d.reason),
    }
}

fn pair_text(p: &PairDiff, out: &mut String) {
    out.push_str(&format!(
        "{} {}: {}\n",
        escaped(&p.agent),
        escaped(&p.tool_display()),
        p.change.as_str()
    ));
    for w in &p.witnesses {
        let request = escaped(&w.request.to_string());
        out.push_str(&format!("  {}: {request}\n", w.direction_str()));
        out.push_str(&format!("    old: {}\n", escaped(&side_text(&w.old))));
        out.push_str(&format!("    new: {}\n", escaped(&side_text(&w.new))));
    }
    if let Some(why) = &p.undecided {
        out.push_str(&format!("  {}\n", escaped(why)));
    }
}

/// The text form: one block per pair, nothing when the policies are equivalent.
fn text(report: &Report) -> String {
    let mut out = String::new();
    for p in &report.pairs {
        pair_text(p, &mut out);
    }
    out
}
