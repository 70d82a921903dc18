//! How large a pattern's automaton would be, estimated from its syntax alone: the compiler
//! uses it to send a pattern to the lazy fallback instead of a dense DFA, and the lints to skip
//! comparing languages whose automata would be too large to compare quickly.

use regex_syntax::hir::{Hir, HirKind};

/// Above this estimated automaton size a pattern is not determinized: the compiler sends it to
/// the lazy fallback regex, and the lints leave comparisons involving it undecided. Globs and
/// ASCII regexes stay far below it; bounded repetitions of Unicode classes (`\w{1,40}`) are
/// far above.
pub const DENSE_ESTIMATE_BUDGET: usize = 4_000;

/// A cheap upper estimate of a pattern's automaton size, from its syntax alone: literals and
/// classes count their bytes and ranges, repetitions multiply by their bound. Computed in one
/// walk, so deciding to skip a DFA costs nothing like building one.
///
/// # Example
///
/// ```
/// use toolgate::pattern::size::estimated_size;
/// let small = regex_syntax::parse("(?-u)^/srv/[a-z]+$").unwrap();
/// let large = regex_syntax::parse(r"\w{1,100}").unwrap();
/// assert!(estimated_size(&small) < 100 && estimated_size(&large) > 10_000);
/// ```
pub fn estimated_size(hir: &Hir) -> usize {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 1,
        HirKind::Literal(l) => l.0.len(),
        HirKind::Class(regex_syntax::hir::Class::Bytes(c)) => c.ranges().len(),
        // A Unicode range is up to four bytes long in UTF-8, each a state.
        HirKind::Class(regex_syntax::hir::Class::Unicode(c)) => c.ranges().len().saturating_mul(4),
        HirKind::Repetition(r) => {
            let copies = r.max.map_or(r.min.max(1), |m| m.max(1)) as usize;
            estimated_size(&r.sub).saturating_mul(copies)
        }
        HirKind::Capture(c) => estimated_size(&c.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs
            .iter()
            .map(estimated_size)
            .fold(0usize, usize::saturating_add),
    }
}
