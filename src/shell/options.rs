//! Option spellings: which long options and which other letters mean the same flag, per
//! program, so `rm -rf`, `rm -r -f`, `rm -fr`, `rm -Rf` and `rm --recursive --force` all carry
//! the flags `r` and `f`. Long options may be abbreviated to any prefix (GNU getopt accepts a
//! unique one), so `--rec` is `--recursive`.

use super::words::{CommandView, Word};
use super::wrappers::basename;

/// The option spellings of one program (or one `git` subcommand).
#[derive(Debug)]
pub struct Spellings {
    /// The program (last path component).
    pub program: &'static str,
    /// The subcommand (the second word), if the table is for one.
    pub sub: Option<&'static str>,
    /// Long option names and the short letter they mean (None: no short form).
    pub long: &'static [(&'static str, Option<char>)],
    /// Short letters that mean another short letter (`rm -R` is `-r`).
    pub same: &'static [(char, char)],
}

const fn s(
    program: &'static str,
    sub: Option<&'static str>,
    long: &'static [(&'static str, Option<char>)],
    same: &'static [(char, char)],
) -> Spellings {
    Spellings {
        program,
        sub,
        long,
        same,
    }
}

/// The table.
pub static SPELLINGS: &[Spellings] = &[
    s(
        "rm",
        None,
        &[
            ("recursive", Some('r')),
            ("force", Some('f')),
            ("interactive", Some('i')),
            ("dir", Some('d')),
            ("verbose", Some('v')),
            ("no-preserve-root", None),
            ("preserve-root", None),
            ("one-file-system", None),
        ],
        &[('R', 'r')],
    ),
    s(
        "cp",
        None,
        &[
            ("recursive", Some('r')),
            ("force", Some('f')),
            ("archive", Some('a')),
            ("interactive", Some('i')),
            ("verbose", Some('v')),
            ("no-clobber", Some('n')),
            ("link", Some('l')),
            ("symbolic-link", Some('s')),
            ("update", Some('u')),
            ("remove-destination", None),
        ],
        &[('R', 'r')],
    ),
    s(
        "mv",
        None,
        &[
            ("force", Some('f')),
            ("interactive", Some('i')),
            ("no-clobber", Some('n')),
            ("verbose", Some('v')),
            ("update", Some('u')),
        ],
        &[],
    ),
    s(
        "ln",
        None,
        &[
            ("force", Some('f')),
            ("symbolic", Some('s')),
            ("verbose", Some('v')),
            ("no-dereference", Some('n')),
        ],
        &[],
    ),
    s(
        "chmod",
        None,
        &[
            ("recursive", Some('R')),
            ("verbose", Some('v')),
            ("changes", Some('c')),
            ("silent", Some('f')),
            ("quiet", Some('f')),
        ],
        &[],
    ),
    s(
        "chown",
        None,
        &[
            ("recursive", Some('R')),
            ("verbose", Some('v')),
            ("changes", Some('c')),
            ("silent", Some('f')),
            ("quiet", Some('f')),
        ],
        &[],
    ),
    s(
        "chgrp",
        None,
        &[
            ("recursive", Some('R')),
            ("verbose", Some('v')),
            ("changes", Some('c')),
            ("silent", Some('f')),
            ("quiet", Some('f')),
        ],
        &[],
    ),
    s(
        "shred",
        None,
        &[
            ("remove", Some('u')),
            ("force", Some('f')),
            ("zero", Some('z')),
            ("iterations", Some('n')),
            ("verbose", Some('v')),
        ],
        &[],
    ),
    s(
        "ls",
        None,
        &[
            ("all", Some('a')),
            ("almost-all", Some('A')),
            ("recursive", Some('R')),
            ("human-readable", Some('h')),
        ],
        &[],
    ),
    s(
        "tar",
        None,
        &[
            ("create", Some('c')),
            ("extract", Some('x')),
            ("get", Some('x')),
            ("file", Some('f')),
            ("gzip", Some('z')),
            ("verbose", Some('v')),
            ("list", Some('t')),
        ],
        &[],
    ),
    s(
        "sed",
        None,
        &[
            ("in-place", Some('i')),
            ("expression", Some('e')),
            ("quiet", Some('n')),
            ("silent", Some('n')),
        ],
        &[],
    ),
    s(
        "curl",
        None,
        &[
            ("output", Some('o')),
            ("insecure", Some('k')),
            ("location", Some('L')),
            ("silent", Some('s')),
            ("request", Some('X')),
            ("data", Some('d')),
            ("upload-file", Some('T')),
        ],
        &[],
    ),
    s(
        "rsync",
        None,
        &[
            ("archive", Some('a')),
            ("recursive", Some('r')),
            ("verbose", Some('v')),
            ("compress", Some('z')),
            ("delete", None),
        ],
        &[],
    ),
    s("kill", None, &[("signal", Some('s'))], &[]),
    s(
        "git",
        Some("push"),
        &[
            ("force", Some('f')),
            ("force-with-lease", None),
            ("delete", Some('d')),
            ("dry-run", Some('n')),
            ("set-upstream", Some('u')),
            ("verbose", Some('v')),
            ("tags", None),
            ("all", None),
            ("mirror", None),
        ],
        &[],
    ),
    s(
        "git",
        Some("clean"),
        &[
            ("force", Some('f')),
            ("dry-run", Some('n')),
            ("quiet", Some('q')),
            ("interactive", Some('i')),
        ],
        &[],
    ),
    s(
        "git",
        Some("branch"),
        &[
            ("delete", Some('d')),
            ("force", Some('f')),
            ("move", Some('m')),
            ("all", Some('a')),
        ],
        &[],
    ),
    s("git", Some("checkout"), &[("force", Some('f'))], &[]),
    s(
        "git",
        Some("reset"),
        &[("hard", None), ("soft", None), ("mixed", None)],
        &[],
    ),
];

/// The spellings table for a command (by its program's last component and, for tables of a
/// subcommand, its second word).
pub fn for_command(cmd: CommandView<'_>) -> Option<&'static Spellings> {
    let program = basename(cmd.get(0)?.literal()?);
    let sub = cmd.get(1).and_then(Word::literal);
    SPELLINGS
        .iter()
        .find(|t| t.program == program && (t.sub.is_none() || t.sub == sub))
}

/// A flag in canonical form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag<'a> {
    /// A short letter.
    Short(char),
    /// A long name with no short form (or not in the table).
    Long(&'a str),
}

/// The canonical form of a flag under `table`.
pub fn canonical<'a>(table: Option<&'static Spellings>, flag: Flag<'a>) -> Flag<'a> {
    let Some(t) = table else { return flag };
    match flag {
        Flag::Short(c) => Flag::Short(t.same.iter().find(|(a, _)| *a == c).map_or(c, |p| p.1)),
        Flag::Long(name) => {
            let exact = t.long.iter().find(|(l, _)| *l == name);
            let entry = exact.or_else(|| {
                let mut prefixed = t
                    .long
                    .iter()
                    .filter(|(l, _)| !name.is_empty() && l.starts_with(name));
                let first = prefixed.next();
                // An ambiguous abbreviation is refused by getopt: leave it as written.
                if prefixed.next().is_some() {
                    None
                } else {
                    first
                }
            });
            match entry {
                Some((_, Some(c))) => canonical(table, Flag::Short(*c)),
                Some((l, None)) => Flag::Long(l),
                None => Flag::Long(name),
            }
        }
    }
}

/// Calls `f` with every flag (canonical) of one option word (`-rf`, `--force`, `--max=3`).
/// Returns false if `f` did, stopping there.
pub fn each_flag(
    table: Option<&'static Spellings>,
    word: &str,
    mut f: impl FnMut(Flag<'_>) -> bool,
) -> bool {
    if let Some(long) = word.strip_prefix("--") {
        let name = long.split_once('=').map_or(long, |(n, _)| n);
        return f(canonical(table, Flag::Long(name)));
    }
    for c in word.chars().skip(1) {
        if !f(canonical(table, Flag::Short(c))) {
            return false;
        }
    }
    true
}
