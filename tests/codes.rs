//! Every diagnostic code is declared once (`diagnostic::code`), registered (`lint::registry`),
//! so it is documented in docs/lints.md or docs/language.md and reachable by
//! `# toolgate: allow(...)`, and no stage writes a code as a string of its own: neither the
//! library nor the gateway (`gateway/src`, whose catalog drift codes are declared here too).

use std::collections::BTreeSet;
use std::path::Path;
use toolgate::diagnostic::code;
use toolgate::lint::registry::{LINTS, OTHER_CODES};

/// The `"toolgate::..."` string literals of a source tree, with the file they are in.
fn code_literals(dir: &Path, out: &mut BTreeSet<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            code_literals(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
                let mut rest = line;
                while let Some(at) = rest.find("\"toolgate::") {
                    let tail = &rest[at + 1..];
                    let end = tail.find('"').unwrap_or(tail.len());
                    let code = &tail[..end];
                    // Prefixes (`"toolgate::"`) and format templates (`"toolgate::{}"`) are
                    // not codes.
                    let name = &code["toolgate::".len()..];
                    if !name.is_empty()
                        && name
                            .bytes()
                            .all(|b| b.is_ascii_lowercase() || b == b'_' || b == b':')
                    {
                        out.insert((code.to_string(), path.display().to_string()));
                    }
                    rest = &tail[end..];
                }
            }
        }
    }
}

#[test]
fn no_code_is_written_outside_its_declaration() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut literals = BTreeSet::new();
    // The library, and the gateway (its drift codes are declared here too).
    for dir in ["src", "gateway/src"] {
        code_literals(&root.join(dir), &mut literals);
    }
    // Bundle errors carry codes of their own (`toolgate::bundle::*`), not diagnostics.
    let stray: Vec<_> = literals
        .iter()
        .filter(|(c, _)| !c.starts_with("toolgate::bundle::"))
        .collect();
    assert!(
        stray.is_empty(),
        "codes written as strings instead of a constant of src/diagnostic/code.rs: {stray:?}"
    );
    assert!(
        literals.len() >= 5,
        "the scan finds the bundle's codes: {literals:?}"
    );
}

#[test]
fn every_declared_code_is_registered_once() {
    let declared: Vec<&str> = code::ALL.iter().map(|c| c.code).collect();
    let unique: BTreeSet<&str> = declared.iter().copied().collect();
    assert_eq!(unique.len(), declared.len(), "a code is declared twice");
    assert!(declared.len() > 20, "found only {declared:?}");
    let registered: Vec<&str> = LINTS
        .iter()
        .map(|l| l.code)
        .chain(OTHER_CODES.iter().map(|(c, _, _)| *c))
        .collect();
    let registered_set: BTreeSet<&str> = registered.iter().copied().collect();
    assert_eq!(
        registered_set.len(),
        registered.len(),
        "a code is registered twice"
    );
    assert_eq!(
        unique, registered_set,
        "declared and registered codes differ"
    );
    for c in code::ALL {
        assert_eq!(c.code, format!("toolgate::{}", c.name));
        assert!(!c.summary.is_empty() && !c.summary.ends_with('.'), "{c}");
    }
}

#[test]
fn every_lint_is_its_declared_code() {
    for lint in LINTS {
        let c = lint.declared;
        assert!(code::ALL.contains(&c), "{}", lint.name);
        assert_eq!(
            (lint.name, lint.code, lint.severity, lint.summary),
            (c.name, c.code, c.severity, c.summary)
        );
    }
    for (code, severity, summary) in OTHER_CODES {
        let c = code::ALL.iter().find(|c| c.code == *code).unwrap();
        assert_eq!((c.severity, c.summary), (*severity, *summary));
    }
}

#[test]
fn every_other_code_is_in_the_language_reference() {
    let md =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/language.md"))
            .unwrap();
    let section = md
        .split("\n## 17. Diagnostic codes")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("docs/language.md has section 17");
    let missing: Vec<&str> = OTHER_CODES
        .iter()
        .map(|(c, _, _)| *c)
        .filter(|c| !section.contains(&format!("| `{c}` |")))
        .collect();
    assert!(
        missing.is_empty(),
        "not in docs/language.md section 17: {missing:?}"
    );
}

#[test]
fn the_gateway_drift_codes_are_registered() {
    let drift: Vec<&str> = OTHER_CODES
        .iter()
        .map(|(c, _, _)| *c)
        .filter(|c| c.starts_with("toolgate::drift_"))
        .collect();
    assert_eq!(drift.len(), 9, "{drift:?}");
    assert!(drift.contains(&code::DRIFT_TOOL_NAME_COLLISION.code));
}
