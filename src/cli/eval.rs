//! `toolgate eval POLICY --request FILE`: decide one JSON request or JSON lines.
//!
//! With `-`, requests are read from stdin line by line and each answer is flushed as soon as
//! no more input is waiting, so a host can converse over a pipe. A file holding a single
//! (possibly multi-line) JSON request gets one answer; otherwise every non-blank line gets
//! exactly one answer, in order. A malformed line is answered `bad_request`.

use super::{load_engine, Exit};
use std::io::{BufRead, BufWriter, Write};
use std::path::PathBuf;
use toolgate::{Decision, Engine};

/// Output format of `eval`.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// The decision JSON (LANGUAGE.md section 7)
    Decision,
    /// An agent-SDK tool result: {"type": "tool_result", "tool_use_id", "is_error", "content"}
    ToolResult,
}

/// Arguments of `eval`.
#[derive(clap::Args)]
pub struct Args {
    /// Policy file or folder
    #[arg(required = true)]
    policy: Vec<PathBuf>,
    /// Request file: one JSON request, or JSON lines; `-` reads JSON lines from stdin
    #[arg(long)]
    request: PathBuf,
    /// Add an `explanation` to each decision: the rules considered and why each fired or not
    #[arg(long)]
    explain: bool,
    /// Output format
    #[arg(long, value_enum, default_value = "decision")]
    format: Format,
}

/// Runs `eval`.
pub fn run(args: Args) -> Exit {
    let (engine, _) = match load_engine(&args.policy) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = if args.request.as_os_str() == "-" {
        let stdin = std::io::stdin();
        answer_stream(&engine, &args, &mut stdin.lock(), &mut out)
    } else {
        match std::fs::read(&args.request) {
            Ok(bytes) => answer_document(&engine, &args, &bytes, &mut out),
            Err(e) => {
                eprintln!("error: {}: {e}", args.request.display());
                return Exit::Usage;
            }
        }
    };
    match result.and_then(|_| out.flush()) {
        Ok(()) => Exit::Ok,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Exit::Ok,
        Err(e) => {
            eprintln!("error: writing decisions: {e}");
            Exit::Usage
        }
    }
}

fn write_decision(out: &mut impl Write, d: &Decision, format: Format) -> std::io::Result<()> {
    let json = match format {
        Format::Decision => serde_json::to_string(d),
        Format::ToolResult => serde_json::to_string(&d.to_tool_result(None)),
    }
    .map_err(std::io::Error::other)?;
    out.write_all(json.as_bytes())?;
    out.write_all(b"\n")
}

fn decide_line(engine: &Engine, line: &[u8], explain: bool) -> Decision {
    // The line ending is not part of the request (nor of its size limit).
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match std::str::from_utf8(line) {
        Ok(text) => engine.decide_json(text, explain),
        Err(e) => engine.bad_request(
            format!("bad request: not UTF-8 (byte {})", e.valid_up_to()),
            None,
        ),
    }
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

fn answer_stream(
    engine: &Engine,
    args: &Args,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.fill_buf()?.is_empty() {
            break;
        }
        input.read_until(b'\n', &mut line)?;
        if !is_blank(&line) {
            write_decision(out, &decide_line(engine, &line, args.explain), args.format)?;
        }
        // Flush when no more input is already waiting, so interactive hosts get their answer.
        if input.fill_buf().map(|b| b.is_empty()).unwrap_or(true) {
            out.flush()?;
        }
    }
    Ok(())
}

fn answer_document(
    engine: &Engine,
    args: &Args,
    bytes: &[u8],
    out: &mut impl Write,
) -> std::io::Result<()> {
    let lines: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !is_blank(l))
        .collect();
    if lines.len() > 1 {
        // A single request pretty-printed over several lines gets one answer.
        if let Ok(text) = std::str::from_utf8(bytes) {
            if serde_json::from_str::<serde_json::Value>(text).is_ok() {
                return write_decision(out, &engine.decide_json(text, args.explain), args.format);
            }
        }
    }
    for line in lines {
        write_decision(out, &decide_line(engine, line, args.explain), args.format)?;
    }
    Ok(())
}
