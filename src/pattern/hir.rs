//! Parsing a regex's source to its `Hir`, as every stage reads it, with the classes cached.
//!
//! regex-syntax translates a class afresh each time it meets one, and a Unicode class under
//! `(?i)` (`\w`, `[\w, ]`, `\p{L}`) costs hundreds of thousands of instructions to case fold
//! and sort. A policy of many regexes repeats the same few classes, and each stage (resolve,
//! the pattern index, the fallback set, the lints) parses each regex again. [`parse`] translates
//! each distinct class once per thread: it replaces the classes outside alternations by
//! placeholder characters, translates that cheap skeleton, and puts the cached class back
//! through the same `Hir` constructors the translator uses, so the result equals
//! regex-syntax's own parse (a property test checks it). Whenever that cannot be shown
//! cheaply (a placeholder lost or repeated, `(?x)`, a class outside Unicode mode) or
//! anything fails, it parses the plain way, so errors are regex-syntax's own.

use regex_syntax::ast::{self, Ast, Visitor};
use regex_syntax::hir::translate::TranslatorBuilder;
use regex_syntax::hir::{Capture, Hir, HirKind, Repetition};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::ops::Range;

/// The first placeholder character: plane 15, private use, no case mapping.
const PLACEHOLDER_BASE: u32 = 0xF_0000;

/// At most this many classes are replaced in one regex (plane 15 holds 65,534 characters).
const MAX_PLACEHOLDERS: usize = 4096;

/// Past this many cached classes a thread's cache starts again: it holds the distinct classes
/// of a policy's regexes, usually a handful.
const CACHE_CAPACITY: usize = 512;

/// For a class's source, its translation for each (case-insensitive there, the parser's `utf8`
/// setting) that was asked for ([`variant`]).
type Classes = FxHashMap<Box<str>, [Option<Hir>; 4]>;

thread_local! {
    static CLASSES: RefCell<Classes> = RefCell::new(FxHashMap::default());
}

/// The slot of a class's translation for these settings.
fn variant(case_insensitive: bool, utf8: bool) -> usize {
    usize::from(case_insensitive) * 2 + usize::from(utf8)
}

/// The parser every stage reads a regex with: regex-syntax's defaults, toolgate's nesting
/// limit, and `utf8` as given (the automata take `false`, resolve validates with `true`).
fn parser(utf8: bool) -> regex_syntax::Parser {
    regex_syntax::ParserBuilder::new()
        .utf8(utf8)
        .nest_limit(super::REGEX_NEST_LIMIT)
        .build()
}

/// Parses `pattern` exactly as `ParserBuilder::new().utf8(utf8).nest_limit(REGEX_NEST_LIMIT)`
/// does, translating each distinct class once per thread.
///
/// # Errors
///
/// regex-syntax's error for a pattern it refuses.
pub fn parse(pattern: &str, utf8: bool) -> Result<Hir, Box<regex_syntax::Error>> {
    if !may_cache(pattern) {
        return parser(utf8).parse(pattern).map_err(Box::new);
    }
    match fast(pattern, utf8) {
        Some(hir) => Ok(hir),
        None => parser(utf8).parse(pattern).map_err(Box::new),
    }
}

/// False when `pattern` has no class worth caching: no `\w`, `\s`, `\d`, `\p` (or their
/// negations) and no `(?` that could turn on case folding. A cheap look at the text, so that
/// such regexes cost what the plain parse costs.
pub(crate) fn may_cache(pattern: &str) -> bool {
    pattern.as_bytes().windows(2).any(|w| {
        matches!(
            w,
            [b'\\', b'w' | b'W' | b's' | b'S' | b'd' | b'D' | b'p' | b'P'] | [b'(', b'?']
        )
    })
}

/// [`parse`] through the class cache; `None` when the plain parse must decide.
fn fast(pattern: &str, utf8: bool) -> Option<Hir> {
    // What `ParserBuilder` does, in its two steps: parse (same settings), then translate.
    let mut ast = ast::parse::ParserBuilder::new()
        .nest_limit(super::REGEX_NEST_LIMIT)
        .build()
        .parse(pattern)
        .ok()?;
    let translator = || TranslatorBuilder::new().utf8(utf8).build();
    let found = ast::visit(&ast, Finder::default()).ok()?;
    if found.is_empty() {
        return translator().translate(pattern, &ast).ok();
    }
    let classes = found
        .iter()
        .map(|(span, case_insensitive)| class(pattern.get(span.clone())?, *case_insensitive, utf8))
        .collect::<Option<Vec<Hir>>>()?;
    let mut next = 0;
    replace(&mut ast, &found, &mut next)?;
    if next != found.len() {
        return None;
    }
    let hir = translator().translate(pattern, &ast).ok()?;
    let mut seen = vec![false; classes.len()];
    let hir = rebuild(hir, &classes, &mut seen)?;
    seen.iter().all(|&s| s).then_some(hir)
}

/// Replaces in `ast` the classes at the places `found` lists (in order, from `*next`) by
/// placeholder literals, counting them in `next`.
fn replace(ast: &mut Ast, found: &[(Range<usize>, bool)], next: &mut usize) -> Option<()> {
    match ast {
        Ast::ClassPerl(_) | Ast::ClassUnicode(_) | Ast::ClassBracketed(_) => {
            let span = *ast.span();
            if found
                .get(*next)
                .is_some_and(|(at, _)| at.start == span.start.offset)
            {
                *ast = Ast::literal(ast::Literal {
                    span,
                    kind: ast::LiteralKind::Verbatim,
                    c: placeholder(*next)?,
                });
                *next += 1;
            }
        }
        Ast::Repetition(r) => replace(&mut r.ast, found, next)?,
        Ast::Group(g) => replace(&mut g.ast, found, next)?,
        Ast::Concat(c) => {
            for a in &mut c.asts {
                replace(a, found, next)?;
            }
        }
        Ast::Alternation(a) => {
            for a in &mut a.asts {
                replace(a, found, next)?;
            }
        }
        Ast::Empty(_) | Ast::Flags(_) | Ast::Literal(_) | Ast::Dot(_) | Ast::Assertion(_) => {}
    }
    Some(())
}

/// The `k`th placeholder character.
fn placeholder(k: usize) -> Option<char> {
    char::from_u32(PLACEHOLDER_BASE + u32::try_from(k).ok()?)
}

/// The `Hir` of one class as the translator makes it with `(?i)` on or off, cached.
fn class(source: &str, case_insensitive: bool, utf8: bool) -> Option<Hir> {
    let slot = variant(case_insensitive, utf8);
    let cached = CLASSES.with(|c| {
        c.borrow()
            .get(source)
            .and_then(|v| v.get(slot).cloned().flatten())
    });
    if cached.is_some() {
        return cached;
    }
    let flag = if case_insensitive { "i" } else { "-i" };
    let hir = parser(utf8).parse(&format!("(?{flag}:{source})")).ok()?;
    CLASSES.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_CAPACITY && !c.contains_key(source) {
            c.clear();
        }
        if let Some(s) = c.entry(source.into()).or_default().get_mut(slot) {
            *s = Some(hir.clone());
        }
    });
    Some(hir)
}

/// The skeleton's `Hir` with each placeholder replaced by its class, rebuilt through the
/// constructors the translator uses. Marks in `seen` the placeholders met; `None` when one is
/// met twice.
fn rebuild(hir: Hir, classes: &[Hir], seen: &mut [bool]) -> Option<Hir> {
    // No placeholder is put inside an alternation, and classes, looks and the empty regex
    // hold none: those are kept as they are.
    if matches!(
        hir.kind(),
        HirKind::Alternation(_) | HirKind::Class(_) | HirKind::Look(_) | HirKind::Empty
    ) {
        return Some(hir);
    }
    Some(match hir.into_kind() {
        HirKind::Literal(lit) => {
            let bytes = lit.0;
            let mut parts = Vec::new();
            let (mut start, mut i) = (0, 0);
            while let Some(window) = bytes.get(i..i + 4) {
                match placeholder_at(window) {
                    Some(k) => {
                        let class = classes.get(k)?;
                        if std::mem::replace(seen.get_mut(k)?, true) {
                            return None;
                        }
                        if start < i {
                            parts.push(Hir::literal(bytes.get(start..i)?));
                        }
                        parts.push(class.clone());
                        i += 4;
                        start = i;
                    }
                    None => i += 1,
                }
            }
            if parts.is_empty() {
                return Some(Hir::literal(bytes));
            }
            if start < bytes.len() {
                parts.push(Hir::literal(bytes.get(start..)?));
            }
            Hir::concat(parts)
        }
        HirKind::Repetition(rep) => Hir::repetition(Repetition {
            sub: Box::new(rebuild(*rep.sub, classes, seen)?),
            ..rep
        }),
        HirKind::Capture(cap) => Hir::capture(Capture {
            sub: Box::new(rebuild(*cap.sub, classes, seen)?),
            ..cap
        }),
        HirKind::Concat(subs) => Hir::concat(
            subs.into_iter()
                .map(|s| rebuild(s, classes, seen))
                .collect::<Option<Vec<_>>>()?,
        ),
        HirKind::Alternation(_) | HirKind::Class(_) | HirKind::Look(_) | HirKind::Empty => {
            return None
        }
    })
}

/// The placeholder index encoded by these four bytes, if they encode one.
fn placeholder_at(b: &[u8]) -> Option<usize> {
    if b.first() != Some(&0xF3) {
        return None;
    }
    let c = std::str::from_utf8(b).ok()?.chars().next()?;
    let k = u32::from(c).checked_sub(PLACEHOLDER_BASE)?;
    usize::try_from(k).ok().filter(|&k| k < MAX_PLACEHOLDERS)
}

/// Finds the classes a skeleton may replace: those outside every alternation, in Unicode
/// mode, with whether `(?i)` holds there, tracking flags the way the translator does. Fails
/// on `(?x)` (a class's source would read differently alone) and past [`MAX_PLACEHOLDERS`].
#[derive(Default)]
struct Finder {
    /// The flags `(case_insensitive, not_unicode)` saved at each open group.
    saved: Vec<(bool, bool)>,
    case_insensitive: bool,
    not_unicode: bool,
    alternations: usize,
    /// Open repetitions of at most zero, which drop what they repeat.
    zero_repetitions: usize,
    found: Vec<(Range<usize>, bool)>,
}

impl Finder {
    fn apply(&mut self, flags: &ast::Flags) -> Result<(), ()> {
        let mut negated = false;
        for item in &flags.items {
            match item.kind {
                ast::FlagsItemKind::Negation => negated = true,
                ast::FlagsItemKind::Flag(ast::Flag::CaseInsensitive) => {
                    self.case_insensitive = !negated;
                }
                ast::FlagsItemKind::Flag(ast::Flag::Unicode) => self.not_unicode = negated,
                ast::FlagsItemKind::Flag(ast::Flag::IgnoreWhitespace) => return Err(()),
                ast::FlagsItemKind::Flag(_) => {}
            }
        }
        Ok(())
    }
}

impl Visitor for Finder {
    type Output = Vec<(Range<usize>, bool)>;
    type Err = ();

    fn finish(self) -> Result<Self::Output, ()> {
        Ok(self.found)
    }

    fn visit_pre(&mut self, ast: &Ast) -> Result<(), ()> {
        match ast {
            Ast::Group(g) => {
                self.saved.push((self.case_insensitive, self.not_unicode));
                if let Some(flags) = g.flags() {
                    self.apply(flags)?;
                }
            }
            Ast::Flags(f) => self.apply(&f.flags)?,
            Ast::Alternation(_) => self.alternations += 1,
            Ast::Repetition(r) if repeats_zero(r) => self.zero_repetitions += 1,
            Ast::Literal(l) if is_placeholder(l.c) => return Err(()),
            Ast::ClassPerl(_) | Ast::ClassUnicode(_) | Ast::ClassBracketed(_)
                if self.alternations == 0
                    && self.zero_repetitions == 0
                    && !self.not_unicode
                    && (self.case_insensitive || costly(ast)) =>
            {
                if self.found.len() >= MAX_PLACEHOLDERS {
                    return Err(());
                }
                let span = ast.span();
                self.found
                    .push((span.start.offset..span.end.offset, self.case_insensitive));
            }
            _ => {}
        }
        Ok(())
    }

    fn visit_post(&mut self, ast: &Ast) -> Result<(), ()> {
        match ast {
            Ast::Group(_) => {
                (self.case_insensitive, self.not_unicode) = self.saved.pop().ok_or(())?;
            }
            Ast::Alternation(_) => self.alternations -= 1,
            Ast::Repetition(r) if repeats_zero(r) => self.zero_repetitions -= 1,
            _ => {}
        }
        Ok(())
    }

    fn visit_class_set_item_pre(&mut self, item: &ast::ClassSetItem) -> Result<(), ()> {
        match item {
            ast::ClassSetItem::Literal(l) if is_placeholder(l.c) => Err(()),
            ast::ClassSetItem::Range(r)
                if r.start.c <= PLACEHOLDER_END && r.end.c >= PLACEHOLDER_START =>
            {
                Err(())
            }
            _ => Ok(()),
        }
    }
}

/// True for a class whose translation is worth caching without case folding: a Perl or
/// Unicode class (Unicode tables), or a bracket holding one. An ASCII bracket like `[0-9]`
/// translates faster than it is looked up.
fn costly(ast: &Ast) -> bool {
    fn set(s: &ast::ClassSet) -> bool {
        match s {
            ast::ClassSet::Item(i) => item(i),
            ast::ClassSet::BinaryOp(op) => set(&op.lhs) || set(&op.rhs),
        }
    }
    fn item(i: &ast::ClassSetItem) -> bool {
        match i {
            ast::ClassSetItem::Perl(_) | ast::ClassSetItem::Unicode(_) => true,
            ast::ClassSetItem::Bracketed(b) => set(&b.kind),
            ast::ClassSetItem::Union(u) => u.items.iter().any(item),
            ast::ClassSetItem::Empty(_)
            | ast::ClassSetItem::Literal(_)
            | ast::ClassSetItem::Range(_)
            | ast::ClassSetItem::Ascii(_) => false,
        }
    }
    match ast {
        Ast::ClassPerl(_) | Ast::ClassUnicode(_) => true,
        Ast::ClassBracketed(b) => set(&b.kind),
        _ => false,
    }
}

/// The placeholders' plane, which a pattern written with one of its characters does not use.
const PLACEHOLDER_START: char = '\u{F0000}';
const PLACEHOLDER_END: char = '\u{FFFFF}';

fn is_placeholder(c: char) -> bool {
    (PLACEHOLDER_START..=PLACEHOLDER_END).contains(&c)
}

/// True for `{0}` and `{0,0}`: the translator drops what they repeat, placeholder and all.
fn repeats_zero(r: &ast::Repetition) -> bool {
    matches!(
        r.op.kind,
        ast::RepetitionKind::Range(
            ast::RepetitionRange::Exactly(0) | ast::RepetitionRange::Bounded(_, 0)
        )
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn plain(p: &str, utf8: bool) -> Result<Hir, Box<regex_syntax::Error>> {
        parser(utf8).parse(p).map_err(Box::new)
    }

    fn same(p: &str) {
        for utf8 in [false, true] {
            let got = parse(p, utf8).map_err(|e| e.to_string());
            let want = plain(p, utf8).map_err(|e| e.to_string());
            assert_eq!(got, want, "{p} (utf8 {utf8})");
        }
    }

    #[test]
    fn equals_the_plain_parse_on_known_shapes() {
        for p in [
            r"(?i)^select\s+[\w, ]{1,40}\s+from\s+t1_\w+",
            r"(?i)^select\s+[\w, ]{1,40}\s+from\s+t1_\w+(\s+where\s+.*)?$",
            r"\w{1,100}$",
            r"\b(drop|grant0)\b",
            r"^(foo|bar)[0-9]+-7$",
            r"[a]b[.]c",
            r"x[\x{F0000}]y\x{F0001}",
            r"\x{F0000}\w",
            r"(?i)a(?-i)\w(?i:[k-m]\W)[^\s]",
            r"(?-u)\w(?u)\w(?-u:[a-f])",
            r"(?x) \w [ a ]",
            r"\w{0}b",
            r"(?s)(\w)+(?P<n>\d)*?\pL{2,}",
            r"[[:alpha:]&&[^a-c]]~[a-z--[aeiou]]",
            r"\p{Greek}\P{L}(?i)\p{Lu}",
            r"[\x{F0000}-\x{F00FF}]+\w",
            r"\p{NoSuchClass}",
            r"a[",
            r"(?i)[\u{10FFFF}]",
            r"",
            r"\w",
        ] {
            same(p);
        }
    }

    #[test]
    fn translates_a_class_once() {
        let p = r"(?i)^a\w+";
        same(p);
        let _ = parse(p, false);
        let cached = CLASSES.with(|c| {
            c.borrow()
                .get(r"\w")
                .is_some_and(|v| v[variant(true, false)].is_some())
        });
        assert!(cached);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// The cached parse is regex-syntax's parse, whatever the pattern.
        #[test]
        fn equals_the_plain_parse(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just(r"\w"), Just(r"\W"), Just(r"\s"), Just(r"\d"), Just(r"[\w, ]"),
                    Just(r"[a]"), Just(r"[^a-z]"), Just(r"\pL"), Just(r"[[:digit:]x]"),
                    Just("a"), Just("bc"), Just("."), Just("^"), Just("$"), Just(r"\b"),
                    Just("(?i)"), Just("(?-i)"), Just("(?-u)"), Just("(?u)"), Just("(?s)"),
                    Just("("), Just("(?i:"), Just("(?:"), Just(")"), Just("|"),
                    Just("+"), Just("*"), Just("?"), Just("{0}"), Just("{1,3}"), Just("{1}"),
                    Just(r"\x{F0000}"), Just(r"[\x{F0001}]"), Just("é"), Just("K"),
                ],
                0..14,
            )
        ) {
            let p: String = parts.concat();
            for utf8 in [false, true] {
                let got = parse(&p, utf8).map_err(|e| e.to_string());
                let want = plain(&p, utf8).map_err(|e| e.to_string());
                prop_assert_eq!(got, want, "{} (utf8 {})", p, utf8);
            }
        }
    }
}
