//! The part of a file a rendered diagnostic reads.
//!
//! miette reads a snippet by scanning its source from the start to find lines, so given the
//! whole file each report would cost the file's length, and a policy with a warning on each
//! of 10,000 rules would take quadratic time to print. A [`Window`] answers each read from
//! the lines around the span asked for (found with the file's line index), with their true
//! line numbers and offsets.

use crate::source::SourceFile;
use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

/// A file as miette's source, read a few lines at a time.
#[derive(Debug)]
pub(crate) struct Window<'a> {
    file: &'a SourceFile,
}

impl<'a> Window<'a> {
    /// The file's window.
    pub(crate) fn new(file: &'a SourceFile) -> Window<'a> {
        Window { file }
    }
}

impl SourceCode for Window<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let text: &'b str = &self.file.text;
        // A carriage return outside `\r\n` is a line break to miette but not to the line
        // index: such a file is read whole.
        let (first_line, base, stop) = if self.file.has_lone_cr() {
            (0, 0, text.len())
        } else {
            let end = span.offset().saturating_add(span.len());
            let context = context_lines_before
                .max(context_lines_after)
                .saturating_add(1);
            self.file.line_window(span.offset(), end, context)
        };
        let part = text.get(base..stop).ok_or(MietteError::OutOfBounds)?;
        let offset = span
            .offset()
            .checked_sub(base)
            .ok_or(MietteError::OutOfBounds)?;
        let local = SourceSpan::new(offset.into(), span.len());
        let inner = part.read_span(&local, context_lines_before, context_lines_after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.file.name.clone(),
            inner.data(),
            SourceSpan::new((inner.span().offset() + base).into(), inner.span().len()),
            inner.line() + first_line,
            inner.column(),
            // miette counts the lines from the start of its source, and merges two labels'
            // snippets by that count: counted from the file's start, they merge as before.
            inner.line_count() + first_line,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan};
    use proptest::prelude::*;

    #[derive(Debug)]
    struct Report<S: SourceCode + std::fmt::Debug> {
        source: S,
        labels: Vec<LabeledSpan>,
    }

    impl<S: SourceCode + std::fmt::Debug> std::fmt::Display for Report<S> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("report")
        }
    }

    impl<S: SourceCode + std::fmt::Debug> std::error::Error for Report<S> {}

    impl<S: SourceCode + std::fmt::Debug> miette::Diagnostic for Report<S> {
        fn source_code(&self) -> Option<&dyn SourceCode> {
            Some(&self.source)
        }
        fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
            Some(Box::new(self.labels.iter().cloned()))
        }
    }

    fn render(d: &dyn miette::Diagnostic) -> String {
        let mut out = String::new();
        GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
            .with_width(80)
            .render_report(&mut out, d)
            .unwrap();
        out
    }

    proptest! {
        /// A report rendered from the window reads exactly as one rendered from the file.
        #[test]
        fn a_window_renders_as_the_whole_file(
            lines in proptest::collection::vec("[a-z é\r]{0,12}", 1..40),
            spans in proptest::collection::vec((0usize..2000, 0usize..30), 1..3),
        ) {
            let text = lines.join("\n");
            let file = SourceFile::new("f.policy", text.as_str());
            let boundary = |mut i: usize| {
                i = i.min(text.len());
                while !text.is_char_boundary(i) {
                    i -= 1;
                }
                i
            };
            let spans: Vec<(usize, usize)> = spans
                .iter()
                .map(|&(s, l)| {
                    let s = boundary(s);
                    (s, boundary(s + l))
                })
                .collect();
            let labels: Vec<LabeledSpan> = spans
                .iter()
                .map(|&(s, e)| LabeledSpan::new_with_span(Some("here".into()), (s, e - s)))
                .collect();
            let whole = Report {
                source: miette::NamedSource::new("f.policy", text.clone()),
                labels: labels.clone(),
            };
            let window = Report {
                source: Window::new(&file),
                labels,
            };
            prop_assert_eq!(render(&window), render(&whole));
        }
    }
}
