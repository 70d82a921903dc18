//! The length of a value as compact JSON text (`serde_json::to_string`), counted without
//! writing it: the measure of a request's size in every host, so that the CLI's limit on a
//! request line means the same for a host's own values.

use std::fmt::{self, Write};

/// The length of `s` as a JSON string literal, quotes included.
pub fn string(s: &str) -> usize {
    let mut n = s.len() + 2;
    for b in s.bytes() {
        n += match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
            0..=0x1f => 5,
            _ => 0,
        };
    }
    n
}

/// The length of an integer's decimal form.
pub fn unsigned(mut u: u64) -> usize {
    let mut n = 1;
    while u >= 10 {
        u /= 10;
        n += 1;
    }
    n
}

/// The length of a signed integer's decimal form.
pub fn signed(i: i64) -> usize {
    usize::from(i < 0) + unsigned(i.unsigned_abs())
}

/// The length of a finite float as serde_json writes it.
pub fn float(f: f64) -> usize {
    struct Count(usize);
    impl Write for Count {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0 += s.len();
            Ok(())
        }
    }
    let mut c = Count(0);
    match serde_json::Number::from_f64(f) {
        Some(n) => {
            let _ = write!(c, "{n}");
            c.0
        }
        None => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn strings_count_as_serde_json_writes_them(s in "\\PC*|[\\x00-\\x7f]{0,40}") {
            prop_assert_eq!(string(&s), serde_json::to_string(&s).unwrap().len());
        }

        #[test]
        fn numbers_count_as_serde_json_writes_them(i in any::<i64>(), u in any::<u64>(), f in any::<f64>()) {
            prop_assert_eq!(signed(i), serde_json::to_string(&i).unwrap().len());
            prop_assert_eq!(unsigned(u), serde_json::to_string(&u).unwrap().len());
            if f.is_finite() {
                prop_assert_eq!(float(f), serde_json::to_string(&f).unwrap().len());
            }
        }
    }
}
