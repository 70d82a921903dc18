//! Machine-readable renderings of diagnostics: JSON and SARIF 2.1.0.

use serde_json::{json, Value};
use toolgate::diagnostic::{Diagnostic, Diagnostics, Severity};
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

/// A SARIF 2.1.0 log with one run.
pub fn sarif(diags: &Diagnostics, sources: &SourceMap) -> Value {
    let mut rule_ids: Vec<&str> = diags.iter().map(|d| d.code).collect();
    rule_ids.sort();
    rule_ids.dedup();
    let rules: Vec<Value> = rule_ids
        .iter()
        .map(|id| {
            let example = diags.iter().find(|d| d.code == *id);
            json!({
                "id": id,
                "name": id.trim_start_matches("toolgate::"),
                "shortDescription": { "text": example.map(|d| d.message.clone()).unwrap_or_default() },
                "helpUri": "https://github.com/toolgate/toolgate/blob/main/docs/language.md",
                "defaultConfiguration": { "level": example.map_or("error", |d| level(d.severity)) },
            })
        })
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
                        "artifactLocation": { "uri": file.replace('\\', "/") },
                        "region": {
                            "startLine": line,
                            "startColumn": column,
                            "endLine": end_line,
                            "endColumn": end_column.max(if end_line == line { column + 1 } else { 1 }),
                        }
                    }
                }],
                "relatedLocations": related(d, sources).into_iter().enumerate().map(|(i, (file, line, column, end_line, end_column, label))| json!({
                    "id": i,
                    "message": { "text": label },
                    "physicalLocation": {
                        "artifactLocation": { "uri": file.replace('\\', "/") },
                        "region": { "startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column.max(column + 1) }
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
                "informationUri": "https://github.com/toolgate/toolgate",
                "rules": rules,
            }},
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
