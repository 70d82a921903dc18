//! Decoding of string literals (JSON escapes) and regex literals (raw, `\"` for a quote).

/// Why a string literal could not be decoded: the byte offset of the bad escape in the body
/// and its length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EscapeError {
    /// Offset of the backslash within the literal's body.
    pub offset: usize,
    /// Length of the bad escape in bytes.
    pub len: usize,
    /// What is wrong.
    pub message: String,
}

/// Decodes the body of a double-quoted string (between the quotes) with JSON escapes.
pub fn decode_string(body: &str) -> Result<String, EscapeError> {
    // Printable ASCII and tabs without a backslash, nearly every literal, decode to themselves.
    if body
        .bytes()
        .all(|b| b == b'\t' || (b' '..=b'~').contains(&b) && b != b'\\')
    {
        return Ok(body.to_owned());
    }
    let mut out = String::with_capacity(body.len());
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            if c.is_control() && c != '\t' {
                return Err(EscapeError {
                    offset: i,
                    len: c.len_utf8(),
                    message: "control characters must be escaped in a string".into(),
                });
            }
            out.push(c);
            continue;
        }
        let Some((_, e)) = chars.next() else {
            return Err(EscapeError {
                offset: i,
                len: 1,
                message: "unfinished escape".into(),
            });
        };
        match e {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '/' => out.push('/'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'u' => {
                let hi = read_hex4(body, i + 2).ok_or_else(|| bad_unicode(i, body))?;
                for _ in 0..4 {
                    chars.next();
                }
                let code = if (0xD800..0xDC00).contains(&hi) {
                    // A high surrogate must be followed by `\uDC00`..`\uDFFF`.
                    let lo = body
                        .get(i + 6..i + 8)
                        .filter(|s| *s == "\\u")
                        .and_then(|_| read_hex4(body, i + 8))
                        .filter(|lo| (0xDC00..0xE000).contains(lo))
                        .ok_or(EscapeError {
                            offset: i,
                            len: 6,
                            message:
                                "a high surrogate escape must be followed by a low surrogate escape"
                                    .into(),
                        })?;
                    for _ in 0..6 {
                        chars.next();
                    }
                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                } else {
                    hi
                };
                let ch = char::from_u32(code).ok_or(EscapeError {
                    offset: i,
                    len: 6,
                    message: "this escape is not a Unicode scalar value".into(),
                })?;
                out.push(ch);
            }
            other => {
                return Err(EscapeError {
                    offset: i,
                    len: 1 + other.len_utf8(),
                    message: format!("unknown escape `\\{other}`"),
                })
            }
        }
    }
    Ok(out)
}

fn read_hex4(body: &str, at: usize) -> Option<u32> {
    let digits = body.get(at..at + 4)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

fn bad_unicode(offset: usize, body: &str) -> EscapeError {
    let len = body[offset..].chars().take(6).map(char::len_utf8).sum();
    EscapeError {
        offset,
        len,
        message: "`\\u` must be followed by four hex digits".into(),
    }
}

/// Decodes the body of a regex literal `re"..."`: everything is raw except `\"`, which is a
/// quote.
pub fn decode_regex(body: &str) -> String {
    body.replace("\\\"", "\"")
}

/// Maps a byte offset in a decoded regex back to the offset in the literal's body.
pub fn regex_offset_in_body(body: &str, pattern_offset: usize) -> usize {
    let mut pattern_pos = 0;
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() && pattern_pos < pattern_offset {
        if bytes.get(i) == Some(&b'\\') && bytes.get(i + 1) == Some(&b'"') {
            i += 2;
        } else {
            i += 1;
        }
        pattern_pos += 1;
    }
    i
}

/// Maps a byte offset in a decoded string literal back to the offset in the literal's body
/// (the text between the quotes, escapes as written).
pub fn string_offset_in_body(body: &str, value_offset: usize) -> usize {
    let bytes = body.as_bytes();
    let (mut i, mut pos) = (0, 0);
    while i < bytes.len() && pos < value_offset {
        if bytes.get(i) == Some(&b'\\') {
            match bytes.get(i + 1) {
                Some(b'u') => {
                    // `\uXXXX`, or a surrogate pair of them for a character beyond the BMP.
                    let code = body
                        .get(i + 2..i + 6)
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                        .unwrap_or(0);
                    if (0xD800..0xDC00).contains(&code) {
                        (i, pos) = (i + 12, pos + 4);
                    } else {
                        let len = char::from_u32(code).map_or(1, char::len_utf8);
                        (i, pos) = (i + 6, pos + len);
                    }
                }
                _ => {
                    i += 2;
                    pos += 1;
                }
            }
        } else {
            i += 1;
            pos += 1;
        }
    }
    i.min(bytes.len())
}

/// Where a comment starts on a line (outside string literals), if it has one.
pub fn comment_start(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let (mut in_str, mut escaped) = (false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_str {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_str = false;
            }
        } else if b == b'"' {
            in_str = true;
        } else if b == b'#' || (b == b'/' && bytes.get(i + 1) == Some(&b'/')) {
            return Some(i);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_decode() {
        assert_eq!(
            decode_string(r#"a\"b\\c\/d\n\t\u00e9"#).unwrap(),
            "a\"b\\c/d\n\té"
        );
        assert_eq!(decode_string(r"\ud83d\ude00").unwrap(), "😀");
    }

    #[test]
    fn bad_escapes_are_reported_with_offsets() {
        let e = decode_string(r"ab\qc").unwrap_err();
        assert_eq!((e.offset, e.len), (2, 2));
        assert!(decode_string(r"\u12").is_err());
        assert!(decode_string(r"\ud83d").is_err());
        assert!(decode_string(r"\udc00").is_err());
    }

    #[test]
    fn regex_bodies_are_raw_except_quotes() {
        assert_eq!(decode_regex(r#"^SELECT\s\"x\""#), r#"^SELECT\s"x""#);
        let body = r#"a\"b(c"#;
        let pat = decode_regex(body);
        let at = pat.find('(').unwrap();
        assert_eq!(&body[regex_offset_in_body(body, at)..], "(c");
    }
}
