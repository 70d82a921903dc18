//! `toolgate eval POLICY --request FILE`: decide one JSON request or JSON lines.
//!
//! With `-`, requests are read from stdin line by line and the answers are flushed as soon as
//! every line read so far is answered, so a host can converse over a pipe. A file holding a single
//! (possibly multi-line) JSON request gets one answer; otherwise every non-blank line gets
//! exactly one answer, in order. A malformed line is answered `bad_request`.

use super::{load_engine, Exit};
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::PathBuf;
use toolgate::engine::request::MAX_REQUEST_BYTES;
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
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let result = if args.request.as_os_str() == "-" {
        let mut input = BufReader::with_capacity(1 << 16, std::io::stdin().lock());
        answer_stream(&engine, &args, &mut input, &mut out)
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

/// Writes one decision as a JSON line. The JSON is built in `buf` (reused across decisions:
/// serde_json writes many small pieces, cheap on a `Vec`) and handed to `out` in one write.
fn write_decision(
    out: &mut impl Write,
    buf: &mut Vec<u8>,
    d: &Decision<'_>,
    format: Format,
) -> std::io::Result<()> {
    buf.clear();
    match format {
        Format::Decision => serde_json::to_writer(&mut *buf, d),
        Format::ToolResult => serde_json::to_writer(&mut *buf, &d.to_tool_result(None)),
    }
    .map_err(std::io::Error::other)?;
    buf.push(b'\n');
    out.write_all(buf)
}

fn decide_line<'e>(engine: &'e Engine, line: &[u8], explain: bool) -> Decision<'e> {
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

/// One line read from a stream, kept only up to the request size limit.
struct Line {
    /// Length without the line ending.
    len: usize,
    /// Every byte is ASCII whitespace.
    blank: bool,
}

/// Reads the next line into `kept` (at most `MAX_REQUEST_BYTES` + 2 bytes of it; the rest is
/// counted and skipped, so a line of any length costs bounded memory). `None` at the end.
fn read_line_bounded<R: Read>(
    input: &mut BufReader<R>,
    kept: &mut Vec<u8>,
) -> std::io::Result<Option<Line>> {
    let keep = MAX_REQUEST_BYTES + 2;
    kept.clear();
    let (mut total, mut blank, mut last, mut before_last) = (0usize, true, None, None);
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        let (part, ends) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (&chunk[..=i], true),
            None => (chunk, false),
        };
        let room = keep.saturating_sub(kept.len()).min(part.len());
        kept.extend_from_slice(&part[..room]);
        blank &= part.iter().all(u8::is_ascii_whitespace);
        if part.len() >= 2 {
            before_last = Some(part[part.len() - 2]);
        } else {
            before_last = last;
        }
        last = part.last().copied().or(last);
        total += part.len();
        let n = part.len();
        input.consume(n);
        if ends {
            break;
        }
    }
    if total == 0 {
        return Ok(None);
    }
    let ending = match (before_last, last) {
        (Some(b'\r'), Some(b'\n')) => 2,
        (_, Some(b'\n')) => 1,
        _ => 0,
    };
    Ok(Some(Line {
        len: total - ending,
        blank,
    }))
}

fn answer_stream<R: Read>(
    engine: &Engine,
    args: &Args,
    input: &mut BufReader<R>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let (mut kept, mut buf) = (Vec::new(), Vec::new());
    while let Some(line) = read_line_bounded(input, &mut kept)? {
        if !line.blank {
            let d = if line.len > MAX_REQUEST_BYTES {
                let bad = toolgate::engine::BadRequest::too_large(line.len);
                engine.bad_request(format!("bad request: {}", bad.message), None)
            } else {
                decide_line(engine, &kept, args.explain)
            };
            write_decision(out, &mut buf, &d, args.format)?;
        }
        // Flush once everything read so far is answered: a host conversing over a pipe gets
        // each answer before it sends the next request, and a batch is written a buffer at a
        // time. (Asking the pipe whether more is waiting would block.)
        if input.buffer().is_empty() {
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
                let d = engine.decide_json(text, args.explain);
                return write_decision(out, &mut Vec::new(), &d, args.format);
            }
        }
    }
    let mut buf = Vec::new();
    for line in lines {
        let d = decide_line(engine, line, args.explain);
        write_decision(out, &mut buf, &d, args.format)?;
    }
    Ok(())
}
