//! One word of an argv pattern: a glob over the characters of a single word (`*`, `?`,
//! `[...]`), or an exact word.

/// One element of a glob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// A literal character.
    Char(char),
    /// `?`: any one character.
    One,
    /// `*`: any run of characters, `/` included.
    Star,
    /// `[...]`: a character class of inclusive ranges.
    Class {
        /// `[!...]` or `[^...]`.
        negated: bool,
        /// The ranges (a single character is a range of one).
        ranges: Vec<(char, char)>,
    },
}

impl Piece {
    fn matches(&self, c: char) -> bool {
        match self {
            Piece::Char(x) => *x == c,
            Piece::One => true,
            Piece::Star => false,
            Piece::Class { negated, ranges } => {
                ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
            }
        }
    }
}

/// A compiled word glob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Glob {
    /// Exactly this word.
    Exact(String),
    /// `*` alone: any word.
    Any,
    /// Anything else.
    Pieces(Vec<Piece>),
}

impl Glob {
    /// Builds the simplest glob for `pieces`.
    pub fn new(pieces: Vec<Piece>) -> Glob {
        if pieces.iter().all(|p| matches!(p, Piece::Char(_))) {
            return Glob::Exact(
                pieces
                    .iter()
                    .filter_map(|p| match p {
                        Piece::Char(c) => Some(*c),
                        _ => None,
                    })
                    .collect(),
            );
        }
        if matches!(pieces.as_slice(), [Piece::Star]) {
            return Glob::Any;
        }
        Glob::Pieces(pieces)
    }

    /// The exact word, if this glob has no wildcard.
    pub fn exact(&self) -> Option<&str> {
        match self {
            Glob::Exact(s) => Some(s),
            _ => None,
        }
    }

    /// The part after the last literal `/` (for comparing programs by their last component).
    pub fn basename(&self) -> Glob {
        match self {
            Glob::Exact(s) => Glob::Exact(super::wrappers::basename(s).to_string()),
            Glob::Any => Glob::Any,
            Glob::Pieces(p) => {
                let from = p
                    .iter()
                    .rposition(|x| *x == Piece::Char('/'))
                    .map_or(0, |i| i + 1);
                Glob::new(p.get(from..).unwrap_or(&[]).to_vec())
            }
        }
    }

    /// Whether `s` matches. Linear in `s` times the number of pieces at worst.
    pub fn matches(&self, s: &str) -> bool {
        let pieces = match self {
            Glob::Exact(e) => return e == s,
            Glob::Any => return true,
            Glob::Pieces(p) => p,
        };
        let (mut p, mut i) = (0usize, 0usize);
        let mut back: Option<(usize, usize)> = None;
        loop {
            if let Some(piece) = pieces.get(p) {
                if *piece == Piece::Star {
                    back = Some((p, i));
                    p += 1;
                    continue;
                }
                if let Some(c) = s.get(i..).and_then(|r| r.chars().next()) {
                    if piece.matches(c) {
                        p += 1;
                        i += c.len_utf8();
                        continue;
                    }
                }
            } else if i == s.len() {
                return true;
            }
            let Some((bp, bi)) = back else { return false };
            let Some(c) = s.get(bi..).and_then(|r| r.chars().next()) else {
                return false;
            };
            let ni = bi + c.len_utf8();
            back = Some((bp, ni));
            p = bp + 1;
            i = ni;
        }
    }
}
