//! The pipeline's imports point one way: each module of `src/` uses only the modules before it
//! in [`ORDER`] (the order of the layout section of docs/assurance.md). Test modules (`#[cfg(test)]`, at
//! the end of a file) and comments are not imports and are skipped.

use std::path::Path;

/// The top-level modules, lowest first.
const ORDER: &[&str] = &[
    "source",
    "diagnostic",
    "syntax",
    "pattern",
    "value",
    "shell",
    "reason",
    "resolve",
    "program",
    "compile",
    "bundle",
    "engine",
    "testing",
    "host",
    "lint",
    "load",
    "review",
    "fmt",
    "cli",
];

fn rank(module: &str) -> Option<usize> {
    ORDER.iter().position(|m| *m == module)
}

/// The code of a file without its test module and its comments.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::name` the code refers to.
fn references(code: &str) -> Vec<String> {
    code.match_indices("crate::")
        .map(|(i, m)| {
            code[i + m.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

fn visit(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            visit(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((
                path.display().to_string(),
                std::fs::read_to_string(&path).unwrap(),
            ));
        }
    }
}

#[test]
fn no_module_imports_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    visit(&src, &mut files);
    assert!(files.len() > 50, "src/ was not found");
    let mut upward = Vec::new();
    for (path, text) in &files {
        let rel = Path::new(path).strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if top == "lib" || top == "main" {
            continue;
        }
        let from = rank(&top).unwrap_or_else(|| panic!("{top} is not in ORDER"));
        for name in references(&code(text)) {
            if let Some(to) = rank(&name) {
                if to > from {
                    upward.push(format!("{} uses crate::{name}", rel.display()));
                }
            }
        }
    }
    upward.sort();
    upward.dedup();
    assert!(
        upward.is_empty(),
        "imports pointing up the pipeline: {upward:#?}"
    );
}

#[test]
fn the_check_sees_an_upward_import() {
    let code =
        code("use crate::lint::Lint;\n// crate::cli in a comment\n#[cfg(test)]\nuse crate::cli;");
    assert_eq!(references(&code), vec!["lint".to_string()]);
}
