//! The `shell` pattern kind's parser and matcher: the hostile-command corpus under an allow-list
//! and a deny-list, parser and pattern behaviour, very long and deeply nested inputs, and
//! property tests.

use proptest::prelude::*;
use toolgate::shell::{self, Command, Construct, Pattern, PatternSet, Word};

const ALLOW: &[&str] = &[
    "git log ...",
    "git status",
    "git diff ...",
    "npm run test",
    "npm run lint",
    "ls ...",
    "echo ...",
    "cargo test ...",
    "sudo -u deploy systemctl restart app",
];

const DENY: &[&str] = &[
    "rm -{r} ...",
    "mkfs* ...",
    "sudo ...",
    "dd ...",
    "curl ...",
    "git push -{force} ...",
    "chmod -{R} ...",
];

fn set(patterns: &[&str]) -> PatternSet {
    let mut s = PatternSet::new();
    for p in patterns {
        s.add(Pattern::parse(p).unwrap_or_else(|e| panic!("pattern `{p}`: {e}")));
    }
    s
}

fn argv(c: &Command) -> Vec<String> {
    c.words()
        .map(|w| match w {
            Word::Literal(s) => s.to_string(),
            Word::Unknown { fields: false } => "?".into(),
            Word::Unknown { fields: true } => "?*".into(),
        })
        .collect()
}

fn commands(value: &str) -> Vec<Vec<String>> {
    shell::generous(value).commands.iter().map(argv).collect()
}

#[test]
fn corpus() {
    let allow = set(ALLOW);
    let deny = set(DENY);
    let text = include_str!("shell/corpus.txt");
    let mut failures = Vec::new();
    let mut cases = 0;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (a, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let (d, json) = rest
            .trim_start()
            .split_once(char::is_whitespace)
            .unwrap_or((rest, ""));
        let value: String = serde_json::from_str(json.trim())
            .unwrap_or_else(|e| panic!("corpus line {}: {e}", n + 1));
        let want_allow = match a {
            "allow" => true,
            "-" => false,
            other => panic!("corpus line {}: allow column `{other}`", n + 1),
        };
        let want_deny = match d {
            "deny" => true,
            "-" => false,
            other => panic!("corpus line {}: deny column `{other}`", n + 1),
        };
        let got_allow = allow.allow_matches(&value).is_ok_and(|m| !m.is_empty());
        let dm = deny.deny_matches(&value);
        let got_deny = dm.unreadable.is_some() || !dm.matches.is_empty();
        cases += 1;
        if got_allow != want_allow || got_deny != want_deny {
            failures.push(format!(
                "line {}: {json}: allow {got_allow} (want {want_allow}), deny {got_deny} (want {want_deny}); strict: {:?}; generous: {:?} {:?}",
                n + 1,
                shell::strict(&value).map(|c| argv(&c)),
                commands(&value),
                dm.unreadable,
            ));
        }
    }
    assert!(cases > 150, "corpus has only {cases} cases");
    assert!(
        failures.is_empty(),
        "{} corpus failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn strict_removes_quoting_and_continuations() {
    let c = shell::strict(r#"'git' "log" --format='%h %s' a\ b "x\"y" 'it'\''s'"#).unwrap();
    assert_eq!(
        argv(&c),
        ["git", "log", "--format=%h %s", "a b", "x\"y", "it's"]
    );
    let c = shell::strict("git \\\n log\\\n2").unwrap();
    assert_eq!(argv(&c), ["git", "log2"]);
    // A newline inside quotes is part of the word, not a separator.
    let c = shell::strict("git commit -m 'a\nb'").unwrap();
    assert_eq!(argv(&c), ["git", "commit", "-m", "a\nb"]);
}

#[test]
fn strict_names_the_construct_and_its_offset() {
    let cases: &[(&str, Construct, usize)] = &[
        ("ls; rm", Construct::Sequence, 2),
        ("ls && rm", Construct::AndOr, 3),
        ("ls | rm", Construct::Pipe, 3),
        ("ls &", Construct::Background, 3),
        ("ls\nrm", Construct::Newline, 2),
        ("ls > x", Construct::Redirection, 3),
        ("cat <<EOF", Construct::HereDoc, 4),
        ("echo $(id)", Construct::CommandSubstitution, 5),
        ("echo `id`", Construct::Backticks, 5),
        ("echo $HOME", Construct::ParameterExpansion, 5),
        ("echo ${HOME}", Construct::ParameterExpansion, 5),
        ("echo $((1))", Construct::Arithmetic, 5),
        ("echo $'x'", Construct::DollarQuote, 5),
        ("diff <(a) b", Construct::ProcessSubstitution, 5),
        ("(ls)", Construct::Subshell, 0),
        ("ls *.rs", Construct::Glob, 3),
        ("ls {a,b}", Construct::BraceExpansion, 7),
        ("ls ~/x", Construct::Tilde, 3),
        ("ls --dir=~/x", Construct::Tilde, 9),
        ("A=1 ls", Construct::Assignment, 0),
        ("ls # x", Construct::Comment, 3),
        ("if true", Construct::ReservedWord, 0),
        ("echo 'x", Construct::UnbalancedQuote, 5),
        ("echo \"x", Construct::UnbalancedQuote, 5),
        ("echo x\\", Construct::DanglingEscape, 6),
        ("echo \u{1}", Construct::ControlCharacter, 5),
        ("echo a\u{200b}b", Construct::InvisibleCharacter, 6),
        (" \t ", Construct::Empty, 3),
    ];
    for (value, construct, offset) in cases {
        let e = shell::strict(value).expect_err(value);
        assert_eq!((e.construct, e.offset), (*construct, *offset), "{value:?}");
    }
    // Quoted, none of them is a construct.
    let c = shell::strict("echo 'a;b&&c|d>e $(f) `g` $H *.rs {a,b} ~ #'").unwrap();
    assert_eq!(c.len(), 2);
}

#[test]
fn generous_yields_every_command_it_sees() {
    assert_eq!(
        commands("ls && sudo -u root /bin/rm -rf / | tee log"),
        vec![
            vec!["ls"],
            vec!["sudo", "-u", "root", "/bin/rm", "-rf", "/"],
            vec!["/bin/rm", "-rf", "/"],
            vec!["tee", "log"],
        ]
    );
    assert_eq!(
        commands("echo $(bash -c 'id; whoami')"),
        vec![
            vec!["bash", "-c", "id; whoami"],
            vec!["id"],
            vec!["whoami"],
            vec!["echo", "?*"],
        ]
    );
    assert_eq!(
        commands("FOO=1 xargs -n 1 rm"),
        vec![vec!["xargs", "-n", "1", "rm"], vec!["rm", "?*"]]
    );
    assert_eq!(
        commands("find . -exec rm {} \\; -exec echo x +"),
        vec![
            vec!["find", ".", "-exec", "rm", "{}", ";", "-exec", "echo", "x", "+"],
            vec!["rm", "?"],
            vec!["echo", "x"],
        ]
    );
    let g = shell::generous("ls $(python -c 'print(1)')");
    assert_eq!(
        g.unreadable.map(|u| u.construct),
        Some(Construct::OpaqueProgram)
    );
    assert!(shell::generous("ls -la; echo ok").unreadable.is_none());
}

#[test]
fn allow_matches_wrappers_only_when_named_and_paths_as_written() {
    let s = set(&["rm notes.txt", "sudo rm notes.txt", "/bin/ls ..."]);
    assert!(s.allow_matches("rm notes.txt").unwrap().contains(0));
    let m = s.allow_matches("sudo rm notes.txt").unwrap();
    assert!(!m.contains(0) && m.contains(1));
    assert!(s.allow_matches("/bin/rm notes.txt").unwrap().is_empty());
    assert!(s.allow_matches("/bin/ls -l").unwrap().contains(2));
    assert!(s.allow_matches("ls -l").unwrap().is_empty());
}

#[test]
fn deny_compares_programs_by_last_component() {
    let s = set(&["rm ...", "/usr/bin/curl ..."]);
    for v in ["rm x", "/bin/rm x", "./rm x", "../../bin/rm x"] {
        assert!(s.deny_matches(v).fires(0), "{v}");
    }
    assert!(s.deny_matches("curl x").fires(1));
    assert!(!s.deny_matches("rmdir x").fires(0));
}

/// Privilege wrappers: options with values, `NAME=VALUE` words and no command at all (a shell
/// on standard input), under a deny that does not name the wrapper.
#[test]
fn privilege_wrappers_are_seen_through() {
    let s = set(&["rm ..."]);
    for v in [
        "sudo -s",
        "sudo -i",
        "sudo -iu root",
        "sudo --login",
        "sudo -s <<< 'rm -rf /'",
        "sudo -c class rm -rf /",
        "sudo --unknown-option value rm -rf /",
        "sudo FOO=1 rm -rf /",
        "sudo GIT_PAGER='rm -rf /' git log",
        "doas -s",
        "doas -a style rm -rf /",
        "pkexec",
        "run0",
    ] {
        assert!(s.deny_matches(v).fires(0), "{v}");
    }
    for v in [
        "sudo -E ls -la",
        "sudo -u deploy systemctl restart app",
        "sudo -l",
        "sudo -n true",
        "sudo -E -H git rm --cached x",
        "doas -u www ls",
        "pkexec --user root ls",
    ] {
        let m = s.deny_matches(v);
        assert!(!m.fires(0), "{v}: {:?}", m.unreadable);
    }
}

#[test]
fn word_globs_and_rest() {
    let s = set(&[
        "ls -l? ...",
        "git log",
        "npm run t*",
        "cat [ab].txt",
        "cat '*'",
        "echo ** ",
    ]);
    let m = |v: &str| s.allow_matches(v).unwrap();
    assert!(m("ls -la /tmp").contains(0));
    assert!(m("ls -lh").contains(0));
    assert!(!m("ls -l").contains(0));
    assert!(!m("ls -lah").contains(0));
    assert!(m("git log").contains(1));
    assert!(!m("git log -p").contains(1));
    assert!(m("npm run test").contains(2));
    assert!(!m("npm run lint").contains(2));
    assert!(m("cat a.txt").contains(3) && !m("cat c.txt").contains(3));
    assert!(m("cat '*'").contains(4) && !m("cat x").contains(4));
    assert!(m("echo").contains(5) && m("echo a b c").contains(5));
}

#[test]
fn flag_sets_in_any_spelling() {
    let s = set(&[
        "rm -{r,f} ...",
        "ls -={l,a} ...",
        "git push -{force} ...",
        "rm -{r} /",
    ]);
    for v in [
        "rm -rf /",
        "rm -fr /",
        "rm -r -f /",
        "rm -Rf /",
        "rm --recursive --force /",
        "rm --recursive -f /",
        "rm --rec --for /",
        "rm / -rf",
        "rm -rfv /",
    ] {
        assert!(s.allow_matches(v).unwrap().contains(0), "{v}");
    }
    for v in [
        "rm -r /",
        "rm -f /",
        "rm -- -rf",
        "rm rf",
        "rm --recursive /",
    ] {
        assert!(!s.allow_matches(v).unwrap().contains(0), "{v}");
    }
    // Exact: these flags and no others.
    for v in ["ls -la", "ls -al", "ls -l -a x", "ls --all -l"] {
        assert!(s.allow_matches(v).unwrap().contains(1), "{v}");
    }
    for v in ["ls -lah", "ls -l", "ls -la -R"] {
        assert!(!s.allow_matches(v).unwrap().contains(1), "{v}");
    }
    assert!(s.allow_matches("git push -f origin").unwrap().contains(2));
    assert!(!s
        .allow_matches("git push --force-with-lease")
        .unwrap()
        .contains(2));
    // Operands after the options match positionally.
    assert!(s.allow_matches("rm -r /").unwrap().contains(3));
    assert!(!s.allow_matches("rm -r /tmp").unwrap().contains(3));
}

#[test]
fn run_time_words_may_match_a_deny() {
    let s = set(&["rm -rf /", "git push -{force} ..."]);
    assert!(s.deny_matches("rm $X /").fires(0)); // $X may be `-rf`
    assert!(s.deny_matches("rm \"$X\" /").fires(0));
    assert!(!s.deny_matches("rm \"$X\" /tmp").fires(0)); // one word: cannot make it `/`
    assert!(s.deny_matches("rm $X").fires(0)); // may be `-rf /`
    assert!(s.deny_matches("git push $OPTS origin").fires(1));
    // One run-time word may still be an option (`--force`).
    assert!(s.deny_matches("git push origin \"$BRANCH\"").fires(1));
    assert!(!s.deny_matches("git push origin main").fires(1));
}

#[test]
fn pattern_errors_carry_a_span() {
    let cases: &[(&str, std::ops::Range<usize>)] = &[
        ("", 0..0),
        ("...", 0..3),
        ("git ... log", 8..11),
        ("-{r} rm", 0..4),
        ("rm -{r} -{f}", 8..12),
        ("rm -{r", 3..6),
        ("rm -{r}x", 7..8),
        ("rm -{r,,f}", 7..7),
        ("rm -{r;x}", 5..8),
        ("ls 'abc", 3..7),
        ("ls [abc", 3..7),
        ("ls [z-a]", 3..4),
        ("ls x\\", 4..5),
    ];
    for (p, span) in cases {
        let e = Pattern::parse(p).expect_err(p);
        assert_eq!(&e.span, span, "{p:?}: {}", e.message);
        assert!(e.span.end <= p.len());
    }
    assert!(Pattern::parse("ls -={} ...").is_ok());
}

#[test]
fn very_long_and_deeply_nested_inputs_end_quickly() {
    // Each would take minutes with a quadratic scan, or overflow the stack without a depth
    // limit; the assertion is on the outcome, the runner's timeout on the rest.
    let deep = "$(".repeat(100_000);
    assert_eq!(
        shell::generous(&deep).unreadable.map(|u| u.construct),
        Some(Construct::TooDeep)
    );
    let parens = "(".repeat(100_000);
    assert_eq!(
        shell::generous(&parens).unreadable.map(|u| u.construct),
        Some(Construct::TooDeep)
    );
    let ticks = "echo `".repeat(50_001);
    assert!(shell::generous(&ticks).unreadable.is_some());
    // Scripts in scripts: `eval eval ... rm -rf /` re-reads the line once per `eval`.
    let evals = "eval ".repeat(100_000) + "rm -rf /";
    let g = shell::generous(&evals);
    assert_eq!(g.unreadable.map(|u| u.construct), Some(Construct::TooDeep));
    let mut nested = String::from("rm -rf /");
    for _ in 0..8 {
        nested = format!("sh -c {}", shell_quote(&nested));
    }
    assert!(set(&["rm ..."]).deny_matches(&nested).matches.contains(0));
    let brackets = format!("ls {}", "[".repeat(1_000_000));
    assert_eq!(shell::strict(&brackets).map(|c| c.len()).ok(), Some(2));
    let words = "a ".repeat(500_000);
    assert_eq!(shell::strict(&words).map(|c| c.len()).ok(), Some(500_000));
    let chain = "ls && ".repeat(100_000) + "rm -rf /";
    let s = set(&["rm ..."]);
    assert!(s.deny_matches(&chain).fires(0));
    let wrappers = "sudo ".repeat(100_000) + "rm -rf /";
    assert!(s.deny_matches(&wrappers).fires(0));
    let quotes = "'a'".repeat(300_000);
    assert_eq!(shell::strict(&quotes).map(|c| c.len()).ok(), Some(1));
    let braces = format!("echo {}", "{a,".repeat(300_000));
    assert!(shell::strict(&braces).is_ok());
}

/// Single-quotes `s` for a shell.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Quotes `w` one of three ways.
fn quote(w: &str, style: u8) -> String {
    match style % 3 {
        0 => shell_quote(w),
        1 => {
            let mut out = String::from("\"");
            for c in w.chars() {
                if matches!(c, '"' | '\\' | '$' | '`') {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
            out
        }
        _ => {
            if w.is_empty() {
                return "''".into();
            }
            let mut out = String::new();
            for c in w.chars() {
                if c == '\n' {
                    out.push_str("'\n'");
                } else {
                    out.push('\\');
                    out.push(c);
                }
            }
            out
        }
    }
}

const WORD: &str = "[a-zA-Z0-9 ;&|<>()$`'\"\\\\*?\\[\\]{}~#=,.:/\n-]{0,8}";

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Quoting a word never changes the word the program receives, nor what it matches.
    #[test]
    fn quoting_never_changes_the_words(
        program in "[a-z]{1,6}",
        args in prop::collection::vec(WORD, 0..5),
        styles in prop::collection::vec(any::<u8>(), 6),
    ) {
        let mut plain = vec![program.clone()];
        plain.extend(args.iter().cloned());
        let value = plain
            .iter()
            .enumerate()
            .map(|(i, w)| quote(w, styles[i % styles.len()]))
            .collect::<Vec<_>>()
            .join(" ");
        let parsed = shell::strict(&value)
            .map_err(|e| TestCaseError::fail(format!("{value:?}: {e}")))?;
        prop_assert_eq!(argv(&parsed), plain.clone());
        let s = set(&[&format!("{program} ..."), &format!("{program} *"), "* -{r} ...", "a* *;* ..."]);
        prop_assert_eq!(
            s.allow_matches(&value).ok(),
            Some(s.allow_matches_command(&Command::from_argv(&plain)))
        );
    }

    /// Any value with an unquoted `;` outside quotes never satisfies an allow.
    #[test]
    fn an_unquoted_semicolon_never_satisfies_an_allow(
        before in prop::collection::vec(WORD, 1..4),
        after in prop::collection::vec(WORD, 0..4),
        styles in prop::collection::vec(any::<u8>(), 8),
        glued in any::<bool>(),
    ) {
        let q = |ws: &[String], off: usize| -> String {
            ws.iter().enumerate().map(|(i, w)| quote(w, styles[(i + off) % styles.len()])).collect::<Vec<_>>().join(" ")
        };
        let sep = if glued { ";" } else { " ; " };
        let value = format!("ls {}{sep}{}", q(&before, 0), q(&after, 4));
        let s = set(&["* ...", "ls ...", "*"]);
        prop_assert!(s.allow_matches(&value).is_err(), "{:?}", value);
    }

    /// The parsers and the pattern parser never panic, and a deny never misses a command an
    /// allow would admit.
    #[test]
    fn never_panics(value in "\\PC{0,64}|[ -~\n\t]{0,64}") {
        let strict = shell::strict(&value);
        let g = shell::generous(&value);
        if let Ok(c) = &strict {
            // What the strict reading admits, the generous reading sees.
            prop_assert!(g.unreadable.is_some() || g.commands.iter().any(|d| argv(d) == argv(c)), "{:?}", value);
        }
        let _ = Pattern::parse(&value);
        let s = set(&["rm -{r,f} ...", "git *", "x* ..."]);
        let _ = s.deny_matches(&value);
        let _ = s.allow_matches(&value);
    }
}
