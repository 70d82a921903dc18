//! `toolgate::condition_type_mismatch`

use crate::diagnostic::Diagnostic;
use crate::lint::{declare_lint, warning, Context};
use crate::resolve::{ArgType, BaseType, CondDef, CondTest};

declare_lint! {
    /// ## What it does
    /// With a catalog that declares argument types, reports a condition that cannot apply to
    /// the declared type of its argument: a string test (`==`, `!=`, `in`, `matches`,
    /// `contains`) on a `number`, `integer`, `boolean` or `object`; a numeric comparison on a
    /// `string`, `path`, `boolean` or `object`; a dotted path (`command.x`) into a type that
    /// has no members. An `array<T>` is judged by its elements' type `T`. When a rule targets
    /// several tools, it is reported only when the condition fits none of the types they
    /// declare; an argument declared `any`, or a tool without an argument list, is never
    /// reported.
    ///
    /// ## Why is this bad?
    /// Calls whose argument has another type are refused before any rule runs, so every
    /// value the condition sees has the declared type, and on that type the condition's
    /// answer never depends on the value: `timeout contains "9"` never holds on a number (the
    /// rule never fires), `mode != "ro"` on a number always holds, and a `shell` pattern in a
    /// `deny` fails closed on every number. The author almost always meant another condition
    /// or another type.
    ///
    /// ## Example
    /// ```policy
    /// tool Bash(command: string, timeout?: number)
    /// agent builder {
    ///   default allow
    ///   deny Bash where timeout contains "99"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool Bash(command: string, timeout?: number)
    /// agent builder {
    ///   default allow
    ///   deny Bash where timeout > 600
    /// }
    /// ```
    pub static CONDITION_TYPE_MISMATCH = {
        code: CONDITION_TYPE_MISMATCH,
        stage: Lint,
    }
}

/// What a condition needs of the values it sees.
#[derive(Clone, Copy, PartialEq)]
enum Needs {
    /// Strings.
    Strings,
    /// Numbers.
    Numbers,
    /// Members (a dotted path reads inside the value).
    Members,
}

impl Needs {
    fn of(c: &CondDef) -> Option<Needs> {
        if c.path.len() > 1 {
            return Some(Needs::Members);
        }
        match c.test {
            CondTest::Present => None,
            CondTest::Num(..) => Some(Needs::Numbers),
            CondTest::Str { .. } | CondTest::Contains(_) | CondTest::Shell(_) => {
                Some(Needs::Strings)
            }
        }
    }

    fn met_by(self, base: BaseType) -> bool {
        match self {
            Needs::Strings => base.holds_strings(),
            Needs::Numbers => base.holds_numbers(),
            Needs::Members => base.has_members(),
        }
    }

    fn what(self) -> &'static str {
        match self {
            Needs::Strings => "tests a string",
            Needs::Numbers => "compares a number",
            Needs::Members => "reads inside the value",
        }
    }

    fn help(self, arg: &str) -> String {
        match self {
            Needs::Strings => format!("compare numbers with `{arg} <= 600`, test booleans and objects with `present`, or declare `{arg}` a `string`"),
            Needs::Numbers => format!("a numeric comparison holds only on JSON numbers: test the text (`{arg} == \"600\"`, `matches re\"...\"`), or declare `{arg}` a `number`"),
            Needs::Members => format!("only an `object` (or `array<object>`) has members: test `{arg}` itself, or declare it an `object`"),
        }
    }
}

/// The declared types of `arg` among `tools`; `None` when some tool may carry it untyped (no
/// argument list, or declared `any`).
fn declared_types(cx: &Context, tools: &[u32], arg: &str) -> Option<Vec<ArgType>> {
    let mut types: Vec<ArgType> = Vec::new();
    for &t in tools {
        let params = cx.policy.tools.get(t as usize)?.params.as_ref()?;
        if let Some(p) = params.iter().find(|p| p.name == arg) {
            if p.ty.is_any() {
                return None;
            }
            if !types.contains(&p.ty) {
                types.push(p.ty);
            }
        }
    }
    Some(types)
}

/// Runs the lint (with a catalog).
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    for (a, agent) in cx.agents() {
        for (r, rule) in agent.rules.iter().enumerate() {
            let covered = cx.covers(a, r);
            if cx.skipped(a, r) || covered.is_empty() {
                continue;
            }
            for c in &rule.conditions {
                let (Some(needs), Some(arg)) = (Needs::of(c), c.path.first()) else {
                    continue;
                };
                let Some(types) = declared_types(cx, covered, arg) else {
                    continue;
                };
                if types.is_empty() || types.iter().any(|t| needs.met_by(t.base)) {
                    continue;
                }
                let declared: Vec<String> = types.iter().map(|t| format!("`{t}`")).collect();
                out.push(
                    warning(
                        &CONDITION_TYPE_MISMATCH,
                        c.span,
                        format!(
                            "`{}` {}, but `{arg}` is declared {}",
                            c.text,
                            needs.what(),
                            crate::lint::and_list(&declared)
                        ),
                    )
                    .with_label(format!(
                        "cannot apply to {}",
                        crate::lint::and_list(&declared)
                    ))
                    .with_help(needs.help(arg)),
                );
            }
        }
    }
}
