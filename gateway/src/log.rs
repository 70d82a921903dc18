//! The decision log (one JSON line per `tools/call`) and the operational event log (one JSON
//! line per reload, upstream start or failure, on standard error).

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use crate::config::LogTarget;

/// One line of the decision log.
#[derive(Debug, Clone, Serialize)]
pub struct DecisionLine<'a> {
    /// When the call arrived (RFC 3339, UTC).
    pub time: &'a str,
    /// The agent, from the key.
    pub agent: &'a str,
    /// The key's public display id.
    pub key_id: &'a str,
    /// The upstream server the call was routed to.
    pub server: &'a str,
    /// The tool's upstream name.
    pub tool: &'a str,
    /// `allow` or `deny`.
    pub decision: &'a str,
    /// The decision's reason (`rule_allow`, `no_rule`, ...).
    pub reason: &'a str,
    /// The rule that decided, as `file:line`, when one did.
    pub rule: Option<String>,
    /// The SHA-256 of the policy that decided.
    pub policy_hash: &'a str,
    /// Time spent deciding, in microseconds.
    pub decision_us: f64,
    /// Time spent upstream, in microseconds (absent when the call was not forwarded).
    pub upstream_us: Option<f64>,
    /// Whether the result the agent received has `isError: true`.
    pub is_error: bool,
    /// Why the gateway itself produced an error result (unavailable, timeout, limit), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gateway_error: Option<&'a str>,
    /// The arguments, only with `--log-args`, cut to the configured cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
}

/// Where decision lines go, as opened.
enum Sink {
    /// Standard output.
    Stdout(std::io::Stdout),
    /// A file, appended to, with the path it was opened by and the identity (device, inode)
    /// of the file opened, to notice rotation.
    File {
        path: PathBuf,
        file: File,
        id: Option<(u64, u64)>,
    },
    /// Any writer (tests).
    Writer(Box<dyn Write + Send>),
}

impl Sink {
    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Sink::Stdout(s) => s,
            Sink::File { file, .. } => file,
            Sink::Writer(w) => w,
        }
    }
}

/// The identity of the file at `path` now, if there is one.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

fn open_append(path: &Path) -> Result<File, String> {
    File::options()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open decision log `{}`: {e}", path.display()))
}

/// Where decision lines are written.
///
/// A file is opened in append mode, so a copy-and-truncate rotation (logrotate's
/// `copytruncate`) needs nothing more: the next line goes to the start of the emptied file. A
/// rename rotation, or a deleted file, is noticed by [`DecisionLog::check_rotation`] (the
/// daemon calls it every 500 ms) and by SIGHUP ([`DecisionLog::reopen`]): the path is opened
/// again, created if missing. A failed write is a `decision_log_failed` event; with
/// `[log] on_failure = "deny"` the line of an allowed call is written before the call is
/// forwarded, and the call is refused when that write fails.
pub struct DecisionLog {
    sink: Option<Mutex<Sink>>,
    /// Whether argument values are logged.
    pub log_args: bool,
    /// The cap on the logged argument text, in bytes.
    pub args_cap: usize,
    /// Whether a call whose line cannot be written is refused (`on_failure = "deny"`).
    pub deny_on_failure: bool,
}

impl DecisionLog {
    /// Opens the target (a file is appended to).
    ///
    /// # Errors
    ///
    /// A message when the file cannot be opened.
    pub fn open(
        target: &LogTarget,
        log_args: bool,
        args_cap: usize,
    ) -> Result<DecisionLog, String> {
        let sink = match target {
            LogTarget::Stdout => Some(Sink::Stdout(std::io::stdout())),
            LogTarget::Off => None,
            LogTarget::File(path) => Some(Sink::File {
                file: open_append(path)?,
                id: file_id(path),
                path: path.clone(),
            }),
        };
        Ok(DecisionLog {
            sink: sink.map(Mutex::new),
            log_args,
            args_cap,
            deny_on_failure: false,
        })
    }

    /// A log that writes into memory, for tests.
    pub fn to_writer(w: Box<dyn Write + Send>, log_args: bool, args_cap: usize) -> DecisionLog {
        DecisionLog {
            sink: Some(Mutex::new(Sink::Writer(w))),
            log_args,
            args_cap,
            deny_on_failure: false,
        }
    }

    /// Refuses calls whose line cannot be written (`[log] on_failure = "deny"`).
    pub fn deny_on_failure(mut self, deny: bool) -> DecisionLog {
        self.deny_on_failure = deny;
        self
    }

    fn sink(&self) -> Option<std::sync::MutexGuard<'_, Sink>> {
        self.sink
            .as_ref()
            .map(|m| m.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// Opens a file log's path again (created if missing), logging `decision_log_reopened`
    /// with `why`, or `decision_log_failed` when it cannot be opened (the old file is kept).
    pub fn reopen(&self, why: &str) {
        let Some(mut sink) = self.sink() else { return };
        let Sink::File { path, file, id } = &mut *sink else {
            return;
        };
        match open_append(path) {
            Ok(f) => {
                *file = f;
                *id = file_id(path);
                event(
                    "decision_log_reopened",
                    serde_json::json!({"path": path.display().to_string(), "why": why}),
                );
            }
            Err(e) => {
                limited_event(
                    "decision_log_failed",
                    serde_json::json!({"path": path.display().to_string(), "error": e}),
                );
            }
        }
    }

    /// Reopens a file log whose path no longer names the file it has open (renamed away by
    /// a rotation, or deleted).
    pub fn check_rotation(&self) {
        let moved = match self.sink().as_deref() {
            Some(Sink::File { path, id, .. }) => file_id(path) != *id || id.is_none(),
            _ => false,
        };
        if moved {
            self.reopen("rotated");
        }
    }
    /// The arguments as they may be logged: `None` without `--log-args`; over the cap, the
    /// first bytes of their JSON text as a string marked as cut.
    pub fn loggable_args(&self, args: &serde_json::Map<String, Value>) -> Option<Value> {
        if !self.log_args {
            return None;
        }
        let text = serde_json::to_string(args).unwrap_or_default();
        if text.len() <= self.args_cap {
            return Some(Value::Object(args.clone()));
        }
        let mut end = self.args_cap;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        Some(serde_json::json!({ "truncated": true, "bytes": text.len(), "prefix": &text[..end] }))
    }

    /// Writes one line; returns false when it could not be written, after logging a
    /// `decision_log_failed` event (rate-limited). A log that is off always succeeds.
    pub fn write(&self, line: &DecisionLine<'_>) -> bool {
        let Some(mut sink) = self.sink() else {
            return true;
        };
        let mut text = match serde_json::to_string(line) {
            Ok(t) => t,
            Err(_) => return false,
        };
        text.push('\n');
        let w = sink.writer();
        let result = w.write_all(text.as_bytes()).and_then(|_| w.flush());
        let Err(e) = result else { return true };
        let path = match &*sink {
            Sink::File { path, .. } => path.display().to_string(),
            Sink::Stdout(_) => "stdout".to_string(),
            Sink::Writer(_) => "writer".to_string(),
        };
        drop(sink);
        let effect = if self.deny_on_failure && line.decision == "allow" {
            "call refused"
        } else {
            "line lost"
        };
        limited_event(
            "decision_log_failed",
            serde_json::json!({"path": path, "error": e.to_string(), "effect": effect, "agent": line.agent, "key_id": line.key_id, "server": line.server, "tool": line.tool}),
        );
        false
    }
}

/// Most lines of one rate-limited event kind written per [`LIMITED_WINDOW`].
pub const LIMITED_PER_WINDOW: u32 = 20;
/// The window of [`limited_event`]'s limit.
pub const LIMITED_WINDOW: Duration = Duration::from_secs(60);

#[derive(Default)]
struct Window {
    start: Option<Instant>,
    sent: u32,
    suppressed: u64,
}

/// Writes an event that a caller can cause at will (a refused key, a probe of a hidden tool
/// name), at most [`LIMITED_PER_WINDOW`] lines of each kind per [`LIMITED_WINDOW`]; the first
/// line after a gap says how many were left out (`suppressed`). Returns whether it was written.
pub fn limited_event(kind: &'static str, mut fields: Value) -> bool {
    static WINDOWS: OnceLock<Mutex<HashMap<&'static str, Window>>> = OnceLock::new();
    let suppressed = {
        let mut map = WINDOWS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let w = map.entry(kind).or_default();
        let now = Instant::now();
        if w.start
            .is_none_or(|s| now.duration_since(s) >= LIMITED_WINDOW)
        {
            w.start = Some(now);
            w.sent = 0;
        }
        if w.sent >= LIMITED_PER_WINDOW {
            w.suppressed += 1;
            return false;
        }
        w.sent += 1;
        std::mem::take(&mut w.suppressed)
    };
    if suppressed > 0 {
        if let Value::Object(o) = &mut fields {
            o.insert("suppressed".into(), Value::from(suppressed));
        }
    }
    event(kind, fields);
    true
}

/// A name as it may be echoed to a caller or logged: at most [`SHOWN_NAME_CHARS`] characters,
/// longer ones cut with `…` and their length in bytes.
pub fn shown_name(name: &str) -> String {
    match name.char_indices().nth(SHOWN_NAME_CHARS) {
        None => name.to_string(),
        Some((end, _)) => format!("{}… ({} bytes)", &name[..end], name.len()),
    }
}

/// How many characters of a caller's name [`shown_name`] keeps.
pub const SHOWN_NAME_CHARS: usize = 64;

/// Writes an operational event as one JSON line on standard error.
pub fn event(kind: &str, fields: Value) {
    let mut obj = serde_json::Map::new();
    obj.insert("time".into(), Value::String(crate::time::now_rfc3339()));
    obj.insert("event".into(), Value::String(kind.into()));
    if let Value::Object(extra) = fields {
        obj.extend(extra);
    }
    eprintln!("{}", Value::Object(obj));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn args_are_absent_without_the_flag_and_cut_over_the_cap() {
        let args = json!({"repo_path": "/srv/repo/".repeat(50)});
        let args = args.as_object().unwrap();
        let off = DecisionLog::to_writer(Box::new(std::io::sink()), false, 64);
        assert_eq!(off.loggable_args(args), None);
        let on = DecisionLog::to_writer(Box::new(std::io::sink()), true, 64);
        let cut = on.loggable_args(args).unwrap();
        assert_eq!(cut["truncated"], true);
        assert_eq!(cut["prefix"].as_str().unwrap().len(), 64);
        let small = json!({"a": 1});
        assert_eq!(
            on.loggable_args(small.as_object().unwrap()),
            Some(small.clone())
        );
    }

    #[test]
    fn long_names_are_cut_and_limited_events_stop_at_the_limit() {
        assert_eq!(shown_name("git_log"), "git_log");
        let long = "é".repeat(450_000);
        let shown = shown_name(&long);
        assert!(shown.starts_with(&"é".repeat(SHOWN_NAME_CHARS)), "{shown}");
        assert!(shown.ends_with("… (900000 bytes)"), "{shown}");
        let written = (0..LIMITED_PER_WINDOW + 5)
            .filter(|_| limited_event("test_event", json!({})))
            .count();
        assert_eq!(written, LIMITED_PER_WINDOW as usize);
    }

    fn line() -> DecisionLine<'static> {
        DecisionLine {
            time: "t",
            agent: "a",
            key_id: "tg_00000000",
            server: "s",
            tool: "t",
            decision: "allow",
            reason: "allowed_by_rule",
            rule: None,
            policy_hash: "h",
            decision_us: 1.0,
            upstream_us: None,
            is_error: false,
            gateway_error: None,
            args: None,
        }
    }

    fn lines(path: &Path) -> usize {
        std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
    }

    #[test]
    fn a_rotated_or_deleted_file_is_reopened_and_a_truncated_one_appended_to() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("decisions.log");
        let log = DecisionLog::open(&LogTarget::File(path.clone()), false, 0).unwrap();
        assert!(log.write(&line()));
        // copytruncate: the file is copied and emptied in place; append mode writes the next
        // line at the new end, with no hole of zero bytes before it.
        std::fs::copy(&path, dir.path().join("decisions.log.1")).unwrap();
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(0)
            .unwrap();
        assert!(log.write(&line()));
        let text = std::fs::read(&path).unwrap();
        assert!(!text.contains(&0), "a hole before the line");
        assert_eq!(lines(&path), 1);
        // Rename rotation: noticed, the path opened anew.
        std::fs::rename(&path, dir.path().join("decisions.log.2")).unwrap();
        log.check_rotation();
        assert!(log.write(&line()));
        assert_eq!(lines(&path), 1);
        assert_eq!(lines(&dir.path().join("decisions.log.2")), 1);
        // Deleted: the same.
        std::fs::remove_file(&path).unwrap();
        log.check_rotation();
        assert!(log.write(&line()));
        assert_eq!(lines(&path), 1);
        // Unchanged: nothing to do, the same file keeps growing.
        log.check_rotation();
        assert!(log.write(&line()));
        assert_eq!(lines(&path), 2);
    }

    #[test]
    fn a_write_that_fails_is_reported() {
        let full = DecisionLog::open(&LogTarget::File(PathBuf::from("/dev/full")), false, 0);
        if let Ok(log) = full {
            assert!(!log.write(&line()));
        }
        assert!(DecisionLog::open(&LogTarget::Off, false, 0)
            .unwrap()
            .write(&line()));
    }
}
