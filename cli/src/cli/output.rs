//! Machine-readable renderings of diagnostics: JSON and SARIF 2.1.0.

use serde_json::{json, Value};
use toolgate::diagnostic::{Diagnostic, Diagnostics, Severity};
use toolgate::lint::registry;
use toolgate::source::SourceMap;

fn position(d: &Diagnostic, sources: &SourceMap) -> (String, usize, usize, usize, usize) {
    let file = sources.file(d.span.file);
    let (line, column) = file.line_col(d.span.start);
    let (end_line, end_column) = file.line_col(d.span.end);
    (file.name.clone(), line, column, end_line, end_column)
}

/// `{"diagnostics": [{code, severity, message, help, file, line, column, end_line, end_column}]}`
pub fn json(diags: &Diagnostics, sources: &SourceMap) -> Value {
    let items: Vec<Value> = diags
        .sorted()
        .into_iter()
        .map(|d| {
            let (file, line, column, end_line, end_column) = position(d, sources);
            json!({
                "code": d.code,
                "severity": d.severity.as_str(),
                "message": d.message,
                "help": d.help,
                "label": d.label,
                "file": file,
                "line": line,
                "column": column,
                "end_line": end_line,
                "end_column": end_column,
                "related": related(d, sources).into_iter().map(|(file, line, column, end_line, end_column, label)| json!({
                    "file": file, "line": line, "column": column, "end_line": end_line, "end_column": end_column, "label": label,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "diagnostics": items })
}

const DOCS: &str = "https://github.com/toolgate/toolgate/blob/main/docs";

/// SARIF metadata of one rule: from the lint registry (its doc comment) when the code is a
/// lint, else from the table of other codes.
fn rule_metadata(code: &str, seen: Option<Severity>) -> Value {
    let name = code.trim_start_matches("toolgate::");
    if let Some(lint) = registry::by_code(code) {
        let doc = lint.doc_text();
        let what = lint.section("What it does").unwrap_or_default();
        return json!({
            "id": code,
            "name": name,
            "shortDescription": { "text": lint.summary },
            "fullDescription": { "text": what.replace('\n', " ") },
            "help": { "text": doc.trim(), "markdown": doc.trim() },
            "helpUri": format!("{DOCS}/lints.md#{name}"),
            "defaultConfiguration": { "level": level(lint.severity) },
            "properties": {
                "tags": ["security", "policy"],
                "precision": "high",
                "problem.severity": level(lint.severity),
            },
        });
    }
    let (severity, text) = registry::OTHER_CODES
        .iter()
        .find(|(c, _, _)| *c == code)
        .map(|(_, s, t)| (*s, t.to_string()))
        .unwrap_or((
            seen.unwrap_or(Severity::Error),
            format!("toolgate diagnostic `{code}`"),
        ));
    json!({
        "id": code,
        "name": name,
        "shortDescription": { "text": text },
        "fullDescription": { "text": text },
        "help": { "text": format!("{text}; see docs/language.md, section 17") },
        "helpUri": format!("{DOCS}/language.md#17-diagnostic-codes"),
        "defaultConfiguration": { "level": level(severity) },
        "properties": { "tags": ["policy"], "precision": "very-high", "problem.severity": level(severity) },
    })
}

/// A file name as a SARIF artifact URI: relative paths stay relative (to the directory
/// `check` ran in), absolute ones become `file://` URIs.
fn artifact_uri(file: &str) -> String {
    let path = file.replace('\\', "/");
    let path = path.strip_prefix("./").unwrap_or(&path).replace(' ', "%20");
    if path.starts_with('/') {
        format!("file://{path}")
    } else {
        path
    }
}

/// A SARIF 2.1.0 log with one run. `tool.driver.rules` describes every lint and every other
/// diagnostic code (full metadata from the lint registry); each result's `ruleIndex` points
/// into it.
pub fn sarif(diags: &Diagnostics, sources: &SourceMap) -> Value {
    let mut rule_ids: Vec<&str> = registry::LINTS
        .iter()
        .map(|l| l.code)
        .chain(registry::OTHER_CODES.iter().map(|(c, _, _)| *c))
        .chain(diags.iter().map(|d| d.code))
        .collect();
    rule_ids.sort();
    rule_ids.dedup();
    let rules: Vec<Value> = rule_ids
        .iter()
        .map(|id| rule_metadata(id, diags.iter().find(|d| d.code == *id).map(|d| d.severity)))
        .collect();
    let results: Vec<Value> = diags
        .sorted()
        .into_iter()
        .map(|d| {
            let (file, line, column, end_line, end_column) = position(d, sources);
            let mut text = d.message.clone();
            if let Some(h) = &d.help {
                text.push_str(&format!("\nhelp: {h}"));
            }
            json!({
                "ruleId": d.code,
                "ruleIndex": rule_ids.iter().position(|r| *r == d.code),
                "level": level(d.severity),
                "message": { "text": text },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": artifact_uri(&file) },
                        "region": {
                            "startLine": line,
                            "startColumn": column,
                            "endLine": end_line,
                            "endColumn": end_column.max(if end_line == line { column + 1 } else { 1 }),
                        }
                    },
                    "message": { "text": if d.label.is_empty() { d.message.clone() } else { d.label.clone() } },
                }],
                "relatedLocations": related(d, sources).into_iter().enumerate().map(|(i, (file, line, column, end_line, end_column, label))| json!({
                    "id": i,
                    "message": { "text": label },
                    "physicalLocation": {
                        "artifactLocation": { "uri": artifact_uri(&file) },
                        "region": { "startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column.max(if end_line == line { column + 1 } else { 1 }) }
                    }
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "toolgate",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/toolgate/toolgate",
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Related => "note",
    }
}

fn related(
    d: &Diagnostic,
    sources: &SourceMap,
) -> Vec<(String, usize, usize, usize, usize, String)> {
    d.related
        .iter()
        .map(|(span, label)| {
            let f = sources.file(span.file);
            let (l, c) = f.line_col(span.start);
            let (el, ec) = f.line_col(span.end);
            (f.name.clone(), l, c, el, ec, label.clone())
        })
        .collect()
}
