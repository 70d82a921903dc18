//! The `shell` matcher's fast paths against straightforward ones, on generated commands:
//! - a [`PatternSet`] reading value after value in the buffers it keeps answers like a fresh
//!   reading of each ([`shell::strict`], [`shell::generous`]) matched command by command, also
//!   when it reads past the words of commands no pattern names;
//! - a set (patterns indexed by program) answers like its patterns asked one by one;
//! - a pattern's word sequence (which stops at a matched `...`) matches like a backtracking
//!   reference over the words;
//! - runs of plain characters (`.,=:` included outside braces) read like the character-by-
//!   character rules: literal words, a tilde only at a word start or after `=`/`:`, a brace
//!   expansion only for `{...,...}` or `{..}`.

use proptest::prelude::*;
use toolgate::shell::{self, Command, Construct, Matches, Pattern, PatternSet, Word};

const PATTERNS: &[&str] = &[
    "git log ...",
    "git *",
    "git push -{force} ...",
    "rm -{r,f} ...",
    "rm -={r} *",
    "sudo ...",
    "* ...",
    "x* ...",
    "ls",
    "find ...",
    "node *",
    "env ...",
    "/bin/rm ...",
    "*/rm ...",
    "sh -c *",
    "cat a.txt",
];

/// Tokens a generated command line is made of: words, quotes, operators, wrappers,
/// substitutions.
const TOKENS: &[&str] = &[
    "git",
    "log",
    "push",
    "--force",
    "-f",
    "rm",
    "-rf",
    "-r",
    "-R",
    "--recursive",
    "/bin/rm",
    "sudo",
    "-u",
    "root",
    "env",
    "A=1",
    "timeout",
    "5",
    "sh",
    "bash",
    "-c",
    "'rm -rf /'",
    "\"git log\"",
    "\"$(date)\"",
    "$HOME",
    "~/x",
    "a=~/b",
    "x.y",
    "a,b",
    "{a,b}",
    "{a..c}",
    "*.rs",
    "&&",
    "||",
    "|",
    ";",
    "(",
    ")",
    "$(ls -l)",
    "`id`",
    ">",
    "out.txt",
    "2>&1",
    "find",
    ".",
    "-exec",
    "{}",
    "\\;",
    "xargs",
    "node",
    "-e",
    "app.js",
    "python3",
    "x.py",
    "'a b'",
    "--",
    "=",
    ":",
    "a:~",
    "cat",
    "a.txt",
    "ls",
    "x1",
    "eval",
    "nice",
    "-n",
    "\n",
];

fn set() -> PatternSet {
    let mut s = PatternSet::new();
    for p in PATTERNS {
        s.add(Pattern::parse(p).expect("test patterns parse"));
    }
    s
}

/// Patterns naming a few programs and no glob program: a deny reading keeps the words of
/// those programs and of wrappers only, and reads past every other command's words.
const NARROW: &[&str] = &[
    "git push -{force} ...",
    "rm -{r,f} ...",
    "/bin/rm ...",
    "cat a.txt",
    "ls",
];

/// [`TOKENS`] and tokens that end or split a run of words: comments, tabs, continuations,
/// redirections next to `&&`, quotes and expansions inside words, a control character.
const MORE_TOKENS: &[&str] = &[
    "#", "# c", "a#b", "\t", "x\ty", "\\\n", "&&>", "&>", "2>", "<", ">>", "a'b'", "b\"c\"", "d$x",
    "e`id`", "f\\g", "[a]", "h*", "{", "}", "!", "if", "for", "function", "in", "\u{1}", "\u{a0}",
    "é",
];

fn line() -> impl Strategy<Value = String> {
    line_of(TOKENS.to_vec())
}

/// A command line of `tokens`, some glued to the one before.
fn line_of(tokens: Vec<&'static str>) -> impl Strategy<Value = String> {
    prop::collection::vec((prop::sample::select(tokens), any::<bool>()), 0..14).prop_map(|ts| {
        let mut out = String::new();
        for (t, glued) in ts {
            if !glued && !out.is_empty() {
                out.push(' ');
            }
            out.push_str(t);
        }
        out
    })
}

/// The allow answer from a fresh strict reading.
fn fresh_allow(s: &PatternSet, value: &str) -> Result<Matches, shell::Unreadable> {
    shell::strict(value).map(|c| s.allow_matches_command(&c))
}

/// The deny answer from a fresh generous reading, command by command.
fn fresh_deny(s: &PatternSet, value: &str) -> (Matches, Option<shell::Unreadable>) {
    let g = shell::generous(value);
    let mut m = Matches::default();
    for c in &g.commands {
        s.deny_command(c, &mut m);
    }
    (m, g.unreadable)
}

/// A literal pattern word against a literal word: `*` any run, `?` one character.
fn glob(p: &[char], w: &[char]) -> bool {
    match p.split_first() {
        None => w.is_empty(),
        Some(('*', rest)) => (0..=w.len()).any(|k| glob(rest, &w[k..])),
        Some(('?', rest)) => !w.is_empty() && glob(rest, &w[1..]),
        Some((c, rest)) => w.first() == Some(c) && glob(rest, &w[1..]),
    }
}

/// Pattern words (then `...` when `rest`) against literal words, by backtracking.
fn reference(pattern: &[String], rest: bool, argv: &[String]) -> bool {
    match pattern.split_first() {
        None => rest || argv.is_empty(),
        Some((p, more)) => argv.split_first().is_some_and(|(w, tail)| {
            let p: Vec<char> = p.chars().collect();
            let w: Vec<char> = w.chars().collect();
            glob(&p, &w) && reference(more, rest, tail)
        }),
    }
}

/// The first construct the strict reading refuses in one unquoted word of `[a-z.,=:~{}/-]`,
/// character by character.
fn word_refusal(word: &str) -> Option<Construct> {
    let b = word.as_bytes();
    let (mut open, mut list, mut tilde_ok) = (false, false, true);
    for (i, &c) in b.iter().enumerate() {
        let was = tilde_ok;
        tilde_ok = matches!(c, b'=' | b':');
        match c {
            b'~' if was => return Some(Construct::Tilde),
            b'{' => open = true,
            b',' if open => list = true,
            b'.' if open && b.get(i + 1) == Some(&b'.') => list = true,
            b'}' if open && list => return Some(Construct::BraceExpansion),
            _ => {}
        }
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Reading value after value in kept buffers answers like a fresh reading of each.
    #[test]
    fn kept_buffers_read_like_fresh_ones(values in prop::collection::vec(line(), 1..6)) {
        let s = set();
        for v in &values {
            prop_assert_eq!(s.allow_matches(v), fresh_allow(&s, v), "{:?}", v);
            let d = s.deny_matches(v);
            prop_assert_eq!((d.matches, d.unreadable), fresh_deny(&s, v), "{:?}", v);
        }
    }

    /// A set answers like its patterns asked one by one.
    #[test]
    fn a_set_answers_like_its_patterns_one_by_one(value in line()) {
        let s = set();
        let patterns: Vec<Pattern> = PATTERNS.iter().map(|p| Pattern::parse(p).expect("parses")).collect();
        for c in shell::generous(&value).commands {
            let allow = s.allow_matches_command(&c);
            let mut deny = Matches::default();
            s.deny_command(&c, &mut deny);
            for (id, p) in patterns.iter().enumerate() {
                let literal = matches!(c.get(0), Some(Word::Literal(_)));
                let unknown = matches!(c.get(0), Some(Word::Unknown { .. }));
                prop_assert_eq!(allow.contains(id), literal && p.matches(&c, false), "{} on {}", p, c);
                prop_assert_eq!(deny.contains(id), unknown || (literal && p.matches(&c, true)), "{} on {}", p, c);
            }
        }
    }

    /// A pattern's words match like a backtracking reference.
    #[test]
    fn word_sequences_match_like_backtracking(
        words in prop::collection::vec("[ab*?]{1,3}", 1..4),
        rest in any::<bool>(),
        argv in prop::collection::vec("[ab]{0,3}", 1..7),
    ) {
        let argv: Vec<String> = argv.into_iter().map(|w| if w.is_empty() { "c".into() } else { w }).collect();
        let mut text = words.join(" ");
        if rest {
            text.push_str(" ...");
        }
        // `**` alone is `...`: not a word glob.
        prop_assume!(words.iter().all(|w| w != "**"));
        let p = Pattern::parse(&text).expect("generated patterns parse");
        let c = Command::from_argv(&argv);
        let want = reference(&words, rest, &argv);
        prop_assert_eq!(p.matches(&c, false), want, "{} on {:?}", text, argv);
        prop_assert_eq!(p.matches(&c, true), want, "{} on {:?}", text, argv);
    }

    /// With patterns naming few programs (most commands' words are read past, not kept), a set
    /// answers like fresh readings that keep every word.
    #[test]
    fn skipped_words_read_like_kept_ones(
        value in line_of(TOKENS.iter().chain(MORE_TOKENS).copied().collect())
    ) {
        let mut s = PatternSet::new();
        for p in NARROW {
            s.add(Pattern::parse(p).expect("test patterns parse"));
        }
        let d = s.deny_matches(&value);
        prop_assert_eq!((d.matches, d.unreadable), fresh_deny(&s, &value), "{:?}", value);
        prop_assert_eq!(s.allow_matches(&value), fresh_allow(&s, &value), "{:?}", value);
    }

    /// Unquoted words of plain characters read like the character-by-character rules.
    #[test]
    fn plain_runs_read_like_characters(words in prop::collection::vec("[a-z.,=:~{}/-]{1,6}", 1..5)) {
        let value = format!("prog {}", words.join(" "));
        let want = words.iter().find_map(|w| word_refusal(w));
        match shell::strict(&value) {
            Ok(c) => {
                prop_assert_eq!(want, None, "{:?}", value);
                let got: Vec<String> = c.words().map(|w| w.literal().unwrap_or("?").to_string()).collect();
                let mut expected = vec!["prog".to_string()];
                expected.extend(words.iter().cloned());
                prop_assert_eq!(got, expected);
            }
            Err(e) => prop_assert_eq!(Some(e.construct), want, "{:?}", value),
        }
        // The generous reading keeps every word, a refused one as a run-time word.
        let g = shell::generous(&value);
        prop_assert!(g.unreadable.is_none(), "{:?}", value);
        prop_assert_eq!(g.commands.len(), 1);
        for (w, got) in words.iter().zip(g.commands[0].words().skip(1)) {
            prop_assert_eq!(got.literal().is_none(), word_refusal(w).is_some(), "{:?} in {:?}", w, value);
        }
    }
}
