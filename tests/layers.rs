//! The pipeline's imports point one way: each module of `src/` uses only the modules before it
//! in [`ORDER`] (the order of the layout section of docs/assurance.md). Test modules (`#[cfg(test)]`, at
//! the end of a file) and comments are not imports and are skipped. The library depends on no
//! crate that only the command line (cli/) needs.

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

/// The crates only the command line uses: a host that embeds the library compiles none of
/// them. (`.ci/run` checks the same on `cargo tree -p toolgate -e normal`.)
const CLI_ONLY: &[&str] = &["clap", "mimalloc", "libmimalloc-sys", "assert_cmd"];

/// The `[dependencies]` lines of a manifest: (crate name, the rest of the line).
fn dependencies(manifest: &str) -> Vec<(String, String)> {
    let mut section = "";
    let mut out = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
        } else if section == "[dependencies]" && !line.is_empty() && !line.starts_with('#') {
            let (name, rest) = line.split_once('=').unwrap_or((line, ""));
            let name = name.trim().trim_end_matches(".workspace").to_string();
            out.push((name, rest.trim().to_string()));
        }
    }
    out
}

#[test]
fn the_library_depends_on_no_command_line_crate() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let deps = dependencies(&manifest);
    assert!(
        deps.iter().any(|(name, _)| name == "serde"),
        "the library's dependencies were not found: {deps:?}"
    );
    for (name, rest) in &deps {
        assert!(
            !CLI_ONLY.contains(&name.as_str()),
            "the library depends on `{name}`, which only the command line needs"
        );
        if name == "miette" {
            // The renderer without terminal detection: `fancy` and `fancy-no-backtrace` pull
            // in terminal-size and supports-* probes, and `fancy` backtraces too.
            assert!(
                rest.contains("default-features = false")
                    && rest.contains("\"fancy-no-syscall\"")
                    && !rest.contains("\"fancy\"")
                    && !rest.contains("\"fancy-no-backtrace\""),
                "miette's features: {rest}"
            );
        }
    }
}

#[test]
fn the_manifest_reader_finds_dependencies() {
    let deps = dependencies(
        "[package]\nname = \"x\"\n[dependencies]\n# c\nclap.workspace = true\nserde = \"1\"\n[dev-dependencies]\nclap = \"4\"\n",
    );
    let names: Vec<&str> = deps.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["clap", "serde"]);
}
