//! `syntax::is_ident` is the grammar's `ident` rule, and `syntax::name_text` writes every name
//! so that the parser reads it back: checked against the parser on random strings.

use proptest::prelude::*;
use toolgate::source::FileId;
use toolgate::syntax::ast::Item;
use toolgate::syntax::literal::decode_string;
use toolgate::syntax::{is_ident, name_text, parse_file, quoted};

/// The name of the one tool `text` declares, and whether it was quoted; `None` when the text
/// does not parse cleanly into exactly one tool.
fn one_tool(text: &str) -> Option<(String, bool)> {
    let (file, diags) = parse_file(FileId(0), text);
    if !diags.is_empty() {
        return None;
    }
    match file.items.as_slice() {
        [Item::Tool(t)] => Some((t.name.text.clone(), t.name.quoted)),
        _ => None,
    }
}

/// Strings near the identifier rule's edges: name characters, characters the grammar treats
/// specially, non-ASCII letters and control characters, and keywords.
fn near_names() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z0-9_\\-]{0,6}",
        4 => "[a-zA-Z0-9_\\- .#/\"\\\\(){}:,é\u{7f}\u{85}\u{feff}\t\n]{0,6}",
        1 => prop::sample::select(vec!["tool", "server", "in", "re", "needs", "agent", "where", "_", "-", "a-"])
            .prop_map(str::to_string),
        1 => any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn is_ident_is_the_grammars_identifier_rule(s in near_names()) {
        let bare = one_tool(&format!("tool {s}()")).is_some_and(|(name, quoted)| name == s && !quoted);
        prop_assert_eq!(is_ident(&s), bare, "{:?}", s);
    }

    #[test]
    fn name_text_reads_back_as_the_name(s in near_names()) {
        prop_assume!(!s.is_empty());
        let text = format!("tool {}()", name_text(&s));
        prop_assert_eq!(one_tool(&text), Some((s.clone(), !is_ident(&s))), "{}", text);
        prop_assert_eq!(serde_json::from_str::<String>(&quoted(&s)).ok(), Some(s));
    }
}

#[test]
fn quoted_text_reads_back_in_the_language_and_in_json() {
    for s in [
        "",
        "a",
        "a\"b\\c",
        "\u{0}\u{1f}\u{7f}\u{80}\u{9f}\u{a0}é😀",
        "\t\r\n\u{8}\u{c}",
    ] {
        let q = quoted(s);
        let body = q
            .strip_prefix('"')
            .and_then(|b| b.strip_suffix('"'))
            .unwrap();
        assert_eq!(decode_string(body).ok().as_deref(), Some(s), "{q}");
        assert_eq!(
            serde_json::from_str::<String>(&q).ok().as_deref(),
            Some(s),
            "{q}"
        );
    }
}
