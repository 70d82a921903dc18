//! `docs/lints.md` is generated from the lint rules' doc comments; this test fails when it is
//! stale. Regenerate with `TOOLGATE_BLESS=1 cargo test --test lint_docs`.

use std::path::Path;

#[test]
fn lints_md_is_up_to_date() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/lints.md");
    let want = toolgate::lint::registry::markdown();
    if std::env::var_os("TOOLGATE_BLESS").is_some() {
        std::fs::write(&path, &want).expect("docs/lints.md is writable");
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/lints.md is stale: regenerate it with `TOOLGATE_BLESS=1 cargo test --test lint_docs`"
    );
}

#[test]
fn every_lint_is_documented_in_lints_md() {
    let md = toolgate::lint::registry::markdown();
    for lint in toolgate::lint::registry::LINTS {
        assert!(
            md.contains(&format!("\n## {}\n", lint.name)),
            "{}",
            lint.name
        );
        assert!(
            md.contains(&format!("Code `{}`", lint.code)),
            "{}",
            lint.code
        );
    }
}
