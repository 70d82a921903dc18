//! Every diagnostic code the source emits is registered (`lint::registry`), so it is
//! documented in docs/lints.md or docs/language.md and reachable by `# toolgate: allow(...)`.

use std::collections::BTreeSet;
use std::path::Path;

/// The `"toolgate::..."` string literals of a source tree.
fn emitted_codes(dir: &Path, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            emitted_codes(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
                let mut rest = line;
                while let Some(at) = rest.find("\"toolgate::") {
                    let tail = &rest[at + 1..];
                    let end = tail.find('"').unwrap_or(tail.len());
                    let code = &tail[..end];
                    // Format templates (`"toolgate::{}"`) are not codes.
                    let name = &code["toolgate::".len()..];
                    if !name.is_empty()
                        && name
                            .bytes()
                            .all(|b| b.is_ascii_lowercase() || b == b'_' || b == b':')
                    {
                        out.insert(code.to_string());
                    }
                    rest = &tail[end..];
                }
            }
        }
    }
}

#[test]
fn every_emitted_code_is_registered() {
    let mut emitted = BTreeSet::new();
    emitted_codes(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut emitted,
    );
    assert!(emitted.len() > 20, "found only {emitted:?}");
    let registered: BTreeSet<String> = toolgate::lint::registry::LINTS
        .iter()
        .map(|l| l.code.to_string())
        .chain(
            toolgate::lint::registry::OTHER_CODES
                .iter()
                .map(|(c, _, _)| c.to_string()),
        )
        .collect();
    let unregistered: Vec<&String> = emitted
        .iter()
        .filter(|c| !registered.contains(*c) && !c.starts_with("toolgate::bundle::"))
        .collect();
    assert!(
        unregistered.is_empty(),
        "codes emitted but not registered in src/lint/registry.rs: {unregistered:?}"
    );
}
