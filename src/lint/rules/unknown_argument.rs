//! `toolgate::unknown_argument` (an error reported by `check`)

use crate::diagnostic::{code, Diagnostic};
use crate::lint::{declare_lint, Context};
use crate::resolve::suggest::did_you_mean;
use crate::source::Span;

declare_lint! {
    /// ## What it does
    /// Reports a condition on an argument that none of the targeted tools declares, when
    /// every tool the rule targets declares its arguments (has an argument list), with a
    /// did-you-mean. For a glob target the argument must be declared by at least one of the
    /// tools it covers. A dotted path (`options.cwd`) is checked by its first key.
    ///
    /// `check` reports it as an error (exit 1); the other commands still load the policy, in
    /// which the condition is inert (it is on an argument no call of those tools carries).
    ///
    /// ## Why is this bad?
    /// A condition on an absent argument holds vacuously in an `allow` and never fires in a
    /// `deny`. A misspelt argument therefore turns `allow Bash where comand matches "npm *"`
    /// into an allow of every command, and `deny read_file where pth matches "/etc/**"` into a
    /// deny of nothing.
    ///
    /// ## Example
    /// ```policy
    /// tool Bash(command, timeout?)
    /// agent builder {
    ///   allow Bash where comand matches "npm run *"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool Bash(command, timeout?)
    /// agent builder {
    ///   allow Bash where command matches shell "npm run *"
    /// }
    /// ```
    pub static UNKNOWN_ARGUMENT = {
        code: UNKNOWN_ARGUMENT,
        stage: Lint,
    }
}

/// The length in bytes of the argument path at the start of a condition as written
/// (`options.cwd`, `"a.b".x`).
fn path_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut i = 0;
    loop {
        if bytes.get(i) == Some(&b'"') {
            i += 1;
            while let Some(&c) = bytes.get(i).filter(|&&c| c != b'"') {
                i += if c == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
        } else {
            while bytes
                .get(i)
                .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
            {
                i += 1;
            }
        }
        if bytes.get(i) == Some(&b'.') {
            i += 1;
        } else {
            return i.min(text.len());
        }
    }
}

/// Runs the lint (with a catalog).
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    if !cx.policy.has_catalog() {
        return;
    }
    let policy = cx.policy;
    for (a, agent) in cx.agents() {
        for (r, rule) in agent.rules.iter().enumerate() {
            let covered = cx.covers(a, r);
            if cx.skipped(a, r) || covered.is_empty() {
                continue;
            }
            let mut declared: Vec<&str> = Vec::new();
            let all_declare = covered.iter().all(|&t| {
                match policy.tools.get(t as usize).and_then(|t| t.params.as_ref()) {
                    Some(ps) => {
                        for p in ps {
                            if !declared.contains(&p.name.as_str()) {
                                declared.push(&p.name);
                            }
                        }
                        true
                    }
                    None => false,
                }
            });
            if !all_declare {
                continue;
            }
            for c in &rule.conditions {
                let Some(arg) = c.path.first() else {
                    continue;
                };
                if declared.contains(&arg.as_str()) {
                    continue;
                }
                let message = match covered {
                    [t] => format!(
                        "unknown argument `{arg}`: `{}` declares no such argument",
                        cx.tool_name(*t)
                    ),
                    _ => format!(
                        "unknown argument `{arg}`: none of the tools `{}` targets declares it",
                        rule.target.text
                    ),
                };
                let help = match did_you_mean(arg, declared.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None if declared.is_empty() => "the targeted tools take no arguments; remove the condition, or declare the argument in the catalog".to_string(),
                    None => format!(
                        "declared arguments: {}; fix the name, or declare the argument in the catalog",
                        declared.iter().map(|d| format!("`{d}`")).collect::<Vec<_>>().join(", ")
                    ),
                };
                let span = Span::new(c.span.file, c.span.start, c.span.start + path_len(&c.text));
                out.push(
                    Diagnostic::new(&code::UNKNOWN_ARGUMENT, span, message)
                        .with_label("not a declared argument")
                        .with_help(help),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn path_len_stops_after_the_path() {
        assert_eq!(super::path_len("path matches \"x\""), 4);
        assert_eq!(super::path_len("opts.cwd present"), 8);
        assert_eq!(super::path_len("\"a.b\".x == \"y\""), 7);
    }
}
