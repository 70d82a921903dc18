//! Rendering the printer's lines: cells aligned in runs of lines of one kind (elastic tab stops), long rules broken, trailing comments aligned.

use super::*;

/// Renders the pieces: aligns cells in runs of lines of one kind, breaks long rules, aligns
/// trailing comments.
pub(super) fn render(pieces: &[Piece]) -> String {
    // (code, trailing comment) per physical line; None for a blank line.
    let mut physical: Vec<Option<(String, Option<String>)>> = Vec::new();
    let mut i = 0;
    while let Some(piece) = pieces.get(i) {
        match piece {
            Piece::Blank => {
                physical.push(None);
                i += 1;
            }
            Piece::Comment { indent, text } => {
                physical.push(Some((format!("{}{text}", " ".repeat(*indent)), None)));
                i += 1;
            }
            Piece::Line(first) => {
                // A run: consecutive lines of the same kind and indent, with no comment line
                // or blank between them.
                let mut j = i;
                let mut run: Vec<&Line> = Vec::new();
                while let Some(Piece::Line(l)) = pieces.get(j) {
                    if l.kind != first.kind
                        || l.indent != first.indent
                        || (j > i && !l.hoisted.is_empty())
                    {
                        break;
                    }
                    run.push(l);
                    j += 1;
                    if first.kind == Kind::Plain {
                        break;
                    }
                }
                render_run(&run, &mut physical);
                i = j;
            }
        }
    }
    // Trailing comments: aligned in runs of consecutive commented lines.
    let mut out = String::new();
    let mut k = 0;
    while let Some(line) = physical.get(k) {
        match line {
            None => {
                out.push('\n');
                k += 1;
            }
            Some((code, None)) => {
                out.push_str(code.trim_end());
                out.push('\n');
                k += 1;
            }
            Some((_, Some(_))) => {
                let mut end = k;
                while let Some(Some((_, Some(_)))) = physical.get(end) {
                    end += 1;
                }
                let run = physical.get(k..end).unwrap_or_default();
                let width = run
                    .iter()
                    .flatten()
                    .map(|(c, _)| char_len(c.trim_end()))
                    .max()
                    .unwrap_or(0);
                for (code, comment) in run.iter().flatten() {
                    let code = code.trim_end();
                    out.push_str(code);
                    out.push_str(&" ".repeat(width - char_len(code) + 2));
                    out.push_str(comment.as_deref().unwrap_or(""));
                    out.push('\n');
                }
                k = end;
            }
        }
    }
    out
}

pub(super) fn render_run(run: &[&Line], physical: &mut Vec<Option<(String, Option<String>)>>) {
    let cells = |l: &Line| -> Vec<String> {
        let mut c = l.cells.clone();
        if let Some(t) = &l.rule_tail {
            c.push(t.one_line());
        }
        c
    };
    let all: Vec<Vec<String>> = run.iter().map(|l| cells(l)).collect();
    let n = all.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; n];
    for row in &all {
        // Every cell but the last of its row sets its column's width.
        let aligned = row.split_last().map_or(&[][..], |(_, init)| init);
        for (width, cell) in widths.iter_mut().zip(aligned) {
            *width = (*width).max(char_len(cell));
        }
    }
    for (line, row) in run.iter().zip(&all) {
        let pad = " ".repeat(line.indent);
        for h in &line.hoisted {
            physical.push(Some((format!("{pad}{h}"), None)));
        }
        let mut text = pad.clone();
        let mut col = line.indent;
        let aligned = row.split_last().map_or(&[][..], |(_, init)| init);
        for (cell, width) in aligned.iter().zip(&widths) {
            text.push_str(cell);
            text.push_str(&" ".repeat(width - char_len(cell) + 1));
            col += width + 1;
        }
        let mut lines = Vec::new();
        match (&line.rule_tail, row.last()) {
            (Some(tail), _)
                if char_len(&text) + char_len(&tail.one_line()) > MAX_WIDTH
                    && !tail.conditions.is_empty() =>
            {
                // `col` is where `where` starts.
                let cont = " ".repeat(col);
                let conds = format!("where {}", tail.conditions.join(" and "));
                if char_len(&text) + char_len(&conds) <= MAX_WIDTH {
                    lines.push(format!("{text}{conds}"));
                } else {
                    let mut it = tail.conditions.iter();
                    lines.push(format!(
                        "{text}where {}",
                        it.next().map(String::as_str).unwrap_or("")
                    ));
                    for c in it {
                        lines.push(format!("{cont}  and {c}"));
                    }
                }
                if let Some(b) = &tail.because {
                    lines.push(format!("{cont}because {b}"));
                }
            }
            (_, Some(last)) => lines.push(format!("{text}{last}")),
            (_, None) => lines.push(text),
        }
        let count = lines.len();
        for (k, l) in lines.into_iter().enumerate() {
            let trailing = if k + 1 == count {
                line.trailing.clone()
            } else {
                None
            };
            physical.push(Some((l, trailing)));
        }
    }
}
