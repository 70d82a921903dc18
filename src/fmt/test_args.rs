//! Test arguments (`{ key: value }`) re-spaced canonically, token by token, literals copied as written.

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok<'a> {
    Punct(u8),
    Atom(&'a str),
}

/// Tokens of a test's argument object (comments skipped: they are placed by the printer).
pub(super) fn tokens(text: &str) -> Vec<Tok<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut depth = 0usize;
    let in_line = |i: usize| bytes.get(i).is_some_and(|&c| c != b'\n');
    while let Some(&b) = bytes.get(i) {
        match b {
            b'{' | b'[' => {
                depth += 1;
                out.push(Tok::Punct(b));
                i += 1;
            }
            b'}' | b']' => {
                out.push(Tok::Punct(b));
                i += 1;
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            b',' | b':' => {
                out.push(Tok::Punct(b));
                i += 1;
            }
            b'"' => {
                let start = i;
                i += 1;
                while let Some(&c) = bytes.get(i).filter(|&&c| c != b'"' && c != b'\n') {
                    i += if c == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                out.push(Tok::Atom(&text[start..i]));
            }
            b'#' => {
                while in_line(i) {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while in_line(i) {
                    i += 1;
                }
            }
            b if b.is_ascii_whitespace() => i += 1,
            _ => {
                let start = i;
                while bytes.get(i).is_some_and(|&c| {
                    !matches!(c, b'{' | b'}' | b'[' | b']' | b',' | b':' | b'"' | b'#')
                        && !c.is_ascii_whitespace()
                }) {
                    i += 1;
                }
                if i == start {
                    i += 1;
                    continue;
                }
                out.push(Tok::Atom(&text[start..i]));
            }
        }
    }
    out
}

/// Formats a test's argument object from its source text: `{}` or `{ key: value, ... }`.
pub(super) fn format_object(text: &str) -> String {
    let toks = tokens(text);
    let mut pos = 0;
    value(&toks, &mut pos)
}

pub(super) fn value(toks: &[Tok], pos: &mut usize) -> String {
    match toks.get(*pos) {
        Some(Tok::Punct(b'{')) => {
            *pos += 1;
            let mut pairs = Vec::new();
            loop {
                match toks.get(*pos) {
                    None => break,
                    Some(Tok::Punct(b'}')) => {
                        *pos += 1;
                        break;
                    }
                    Some(Tok::Punct(b',')) => *pos += 1,
                    Some(Tok::Atom(k)) => {
                        let key = k.to_string();
                        *pos += 1;
                        if toks.get(*pos) == Some(&Tok::Punct(b':')) {
                            *pos += 1;
                        }
                        pairs.push(format!("{key}: {}", value(toks, pos)));
                    }
                    Some(_) => *pos += 1,
                }
            }
            if pairs.is_empty() {
                "{}".into()
            } else {
                format!("{{ {} }}", pairs.join(", "))
            }
        }
        Some(Tok::Punct(b'[')) => {
            *pos += 1;
            let mut items = Vec::new();
            loop {
                match toks.get(*pos) {
                    None => break,
                    Some(Tok::Punct(b']')) => {
                        *pos += 1;
                        break;
                    }
                    Some(Tok::Punct(b',')) => *pos += 1,
                    Some(_) => items.push(value(toks, pos)),
                }
            }
            format!("[{}]", items.join(", "))
        }
        Some(Tok::Atom(a)) => {
            *pos += 1;
            a.to_string()
        }
        Some(Tok::Punct(_)) => {
            *pos += 1;
            String::new()
        }
        None => String::new(),
    }
}
