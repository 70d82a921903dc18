//! Text to syntax tree with pest. This module and [`super::error`] are the only places that
//! know pest exists.

use super::ast::*;
use super::error::{friendly_parse_error, resync_points};
use super::literal::{comment_start, decode_regex, decode_string};
use crate::diagnostic::{code, Diagnostic, Diagnostics};
use crate::source::{FileId, Span};
use pest::iterators::Pair;
use pest::Parser as _;

#[derive(pest_derive::Parser)]
#[grammar = "grammar/toolgate.pest"]
pub(crate) struct PolicyParser;

/// Parses one file. Returns every item that parsed and a diagnostic for every syntax error;
/// after an error the parser resumes at the next top-level item.
pub fn parse_file(file: FileId, text: &str) -> (File, Diagnostics) {
    let mut items = Vec::new();
    let mut diags = Diagnostics::new();
    let resync = resync_points(text);
    let mut start = 0;
    while start <= text.len() {
        let ctx = Ctx {
            file,
            base: start,
            diags: Vec::new(),
        };
        match parse_items(&text[start..], ctx) {
            Ok((mut parsed, errs)) => {
                items.append(&mut parsed);
                diags.extend(errs);
                break;
            }
            Err(err) => {
                let pos = start + error_pos(&err);
                // Re-parse the items before the one that failed, so they are not lost.
                let item_start = resync
                    .iter()
                    .copied()
                    .rev()
                    .find(|&r| r >= start && r < pos);
                if let Some(item_start) = item_start.filter(|&s| s > start) {
                    let ctx = Ctx {
                        file,
                        base: start,
                        diags: Vec::new(),
                    };
                    if let Ok((mut parsed, errs)) = parse_items(&text[start..item_start], ctx) {
                        items.append(&mut parsed);
                        diags.extend(errs);
                    }
                }
                diags.push(friendly_parse_error(file, text, pos, &err));
                let floor = item_start.unwrap_or(start);
                match resync
                    .iter()
                    .copied()
                    .find(|&r| r > floor && r >= pos.max(start + 1))
                {
                    Some(next) => start = next,
                    None => break,
                }
            }
        }
    }
    (File { items }, diags)
}

fn error_pos(err: &pest::error::Error<Rule>) -> usize {
    match err.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    }
}

type ParseResult = Result<(Vec<Item>, Vec<Diagnostic>), Box<pest::error::Error<Rule>>>;

fn parse_items(text: &str, mut ctx: Ctx) -> ParseResult {
    let mut pairs = PolicyParser::parse(Rule::policy, text).map_err(Box::new)?;
    let mut items = Vec::new();
    if let Some(policy) = pairs.next() {
        for pair in policy.into_inner() {
            match pair.as_rule() {
                Rule::server => items.push(Item::Server(ctx.server(pair))),
                Rule::tool_decl => items.push(Item::Tool(ctx.tool(pair))),
                Rule::agent => items.push(Item::Agent(ctx.agent(pair))),
                Rule::test_block => items.push(Item::Test(ctx.test(pair))),
                _ => {}
            }
        }
    }
    Ok((items, ctx.diags))
}

/// Conversion state: the file, the offset of the parsed text in it, literal errors found.
struct Ctx {
    file: FileId,
    base: usize,
    diags: Vec<Diagnostic>,
}

impl Ctx {
    /// The pair's span, without the trailing whitespace and comments pest may include.
    fn span(&self, pair: &Pair<Rule>) -> Span {
        let s = pair.as_span();
        let text = s.as_str();
        let mut end = text.len();
        // Trim whitespace and trailing comments (a comment runs to the end of its line).
        loop {
            let trimmed = text[..end].trim_end();
            let line_start = memchr::memrchr(b'\n', trimmed.as_bytes()).map_or(0, |i| i + 1);
            let line = &trimmed[line_start..];
            match has_comment_marker(line)
                .then(|| comment_start(line))
                .flatten()
            {
                Some(c) if line_start + c < trimmed.len() => end = line_start + c,
                _ => {
                    end = trimmed.len();
                    break;
                }
            }
        }
        Span::new(
            self.file,
            self.base + s.start(),
            self.base + s.start() + end,
        )
    }

    fn name(&mut self, pair: Pair<Rule>) -> Name {
        let span = self.span(&pair);
        let inner = pair.into_inner().next();
        match inner {
            Some(p) if p.as_rule() == Rule::string => {
                let lit = self.string(p);
                Name {
                    text: lit.value,
                    quoted: true,
                    span,
                }
            }
            Some(p) => Name {
                text: p.as_str().to_string(),
                quoted: false,
                span,
            },
            None => Name {
                text: String::new(),
                quoted: false,
                span,
            },
        }
    }

    fn string(&mut self, pair: Pair<Rule>) -> StrLit {
        let span = self.span(&pair);
        let body = pair.into_inner().next().map(|b| b.as_str()).unwrap_or("");
        let value = match decode_string(body) {
            Ok(v) => v,
            Err(e) => {
                let at = span.start + 1 + e.offset;
                self.diags.push(
                    Diagnostic::new(
                        &code::INVALID_ESCAPE,
                        Span::new(self.file, at, at + e.len),
                        e.message,
                    )
                    .with_label("not a valid escape")
                    .with_help(
                        "strings use JSON escapes: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX; a regex is written re\"...\" and keeps its backslashes",
                    ),
                );
                String::new()
            }
        };
        StrLit { value, span }
    }

    fn regex(&mut self, pair: Pair<Rule>) -> StrLit {
        let span = self.span(&pair);
        let body = pair.into_inner().next().map(|b| b.as_str()).unwrap_or("");
        StrLit {
            value: decode_regex(body),
            span,
        }
    }

    fn permission(&self, pair: Pair<Rule>) -> PermissionLit {
        PermissionLit {
            text: pair.as_str().to_string(),
            span: self.span(&pair),
        }
    }

    fn server(&mut self, pair: Pair<Rule>) -> Server {
        let span = self.span(&pair);
        let mut name = None;
        let mut tools = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::name => name = Some(self.name(p)),
                Rule::tool_decl => tools.push(self.tool(p)),
                _ => {}
            }
        }
        Server {
            name: name.unwrap_or_else(|| self.missing_name(span)),
            tools,
            span,
        }
    }

    fn missing_name(&self, span: Span) -> Name {
        Name {
            text: String::new(),
            quoted: false,
            span,
        }
    }

    fn tool(&mut self, pair: Pair<Rule>) -> ToolDecl {
        let span = self.span(&pair);
        let mut name = None;
        let mut params = None;
        let mut needs = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::name => name = Some(self.name(p)),
                Rule::params => {
                    let mut list = Vec::new();
                    for param in p.into_inner() {
                        let mut pname = None;
                        let mut optional = false;
                        let mut ty = None;
                        for q in param.into_inner() {
                            match q.as_rule() {
                                Rule::name => pname = Some(self.name(q)),
                                Rule::optional => optional = true,
                                Rule::arg_type => ty = Some(self.arg_type(q)),
                                _ => {}
                            }
                        }
                        if let Some(name) = pname {
                            list.push(Param { name, optional, ty });
                        }
                    }
                    params = Some(list);
                }
                Rule::needs => {
                    needs = p
                        .into_inner()
                        .filter(|q| q.as_rule() == Rule::permission)
                        .map(|q| self.permission(q))
                        .collect()
                }
                _ => {}
            }
        }
        ToolDecl {
            name: name.unwrap_or_else(|| self.missing_name(span)),
            params,
            needs,
            span,
        }
    }

    /// A type, read flat: its words, then a check that every `<` is closed by one `>`.
    fn arg_type(&mut self, pair: Pair<Rule>) -> TypeExpr {
        let span = self.span(&pair);
        let mut words = Vec::new();
        let mut closes = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::type_word => words.push(Name {
                    text: p.as_str().to_string(),
                    quoted: false,
                    span: self.span(&p),
                }),
                Rule::rangle => closes.push(self.span(&p)),
                _ => {}
            }
        }
        let opens = words.len().saturating_sub(1);
        if closes.len() != opens {
            let (at, message, label) = match closes.get(opens) {
                Some(extra) => (*extra, "unexpected `>` in a type", "no `<` to close"),
                None => (
                    Span::new(self.file, span.end, span.end),
                    "expected `>` to close the type",
                    "expected `>` here",
                ),
            };
            self.diags.push(
                Diagnostic::new(&code::SYNTAX, at, message)
                    .with_label(label)
                    .with_help("an array type names its element type in angle brackets: `array<string>`, `array<array<integer>>`"),
            );
        }
        TypeExpr { words, span }
    }

    fn agent(&mut self, pair: Pair<Rule>) -> Agent {
        let span = self.span(&pair);
        let mut name = None;
        let mut stmts = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::name => name = Some(self.name(p)),
                Rule::grant => {
                    let s = self.span(&p);
                    let perms = p
                        .into_inner()
                        .filter(|q| q.as_rule() == Rule::permission)
                        .map(|q| self.permission(q))
                        .collect();
                    stmts.push(AgentStmt::Grant(perms, s));
                }
                Rule::default_stmt => {
                    let s = self.span(&p);
                    let effect = p
                        .into_inner()
                        .find(|q| q.as_rule() == Rule::effect)
                        .map(effect_of)
                        .unwrap_or(Effect::Deny);
                    stmts.push(AgentStmt::Default(effect, s));
                }
                Rule::rule => stmts.push(AgentStmt::Rule(Box::new(self.rule(p)))),
                _ => {}
            }
        }
        // Growing by pushes reserves room for four statements; a policy may hold an agent per
        // user with one or two, and every agent's tree is held until the files are resolved.
        stmts.shrink_to_fit();
        Agent {
            name: name.unwrap_or_else(|| self.missing_name(span)),
            stmts,
            span,
        }
    }

    fn rule(&mut self, pair: Pair<Rule>) -> Rule_ {
        let span = self.span(&pair);
        let mut effect = Effect::Deny;
        let mut target = None;
        let mut conditions = Vec::new();
        let mut because = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::effect => effect = effect_of(p),
                Rule::target => target = Some(self.target(p)),
                Rule::where_clause => {
                    for c in p.into_inner().filter(|c| c.as_rule() == Rule::condition) {
                        conditions.push(self.condition(c));
                    }
                }
                Rule::because => {
                    if let Some(s) = p.into_inner().find(|q| q.as_rule() == Rule::string) {
                        because = Some(self.string(s));
                    }
                }
                _ => {}
            }
        }
        let target = target.unwrap_or(Target {
            server: None,
            tool: TargetPart {
                text: "*".into(),
                quoted: false,
                span,
            },
            span,
        });
        conditions.shrink_to_fit();
        Rule_ {
            effect,
            target,
            conditions,
            because,
            span,
        }
    }

    fn target(&mut self, pair: Pair<Rule>) -> Target {
        let span = self.span(&pair);
        let mut parts: Vec<TargetPart> = Vec::new();
        for p in pair
            .into_inner()
            .filter(|p| p.as_rule() == Rule::target_part)
        {
            let pspan = self.span(&p);
            let inner = p.into_inner().next();
            let part = match inner {
                Some(q) if q.as_rule() == Rule::string => TargetPart {
                    text: self.string(q).value,
                    quoted: true,
                    span: pspan,
                },
                Some(q) => TargetPart {
                    text: q.as_str().to_string(),
                    quoted: false,
                    span: pspan,
                },
                None => TargetPart {
                    text: String::new(),
                    quoted: false,
                    span: pspan,
                },
            };
            parts.push(part);
        }
        let tool = parts.pop().unwrap_or(TargetPart {
            text: "*".into(),
            quoted: false,
            span,
        });
        Target {
            server: parts.pop(),
            tool,
            span,
        }
    }

    fn condition(&mut self, pair: Pair<Rule>) -> Condition {
        let span = self.span(&pair);
        let mut inner = pair.into_inner();
        let arg = match inner.next() {
            Some(a) => {
                let aspan = self.span(&a);
                let segments = a.into_inner().map(|n| self.name(n).text).collect();
                ArgPath {
                    segments,
                    span: aspan,
                }
            }
            None => ArgPath {
                segments: Vec::new(),
                span,
            },
        };
        let op = match inner.next() {
            Some(op) => self.operator(op),
            None => CondOp::Present,
        };
        Condition { arg, op, span }
    }

    fn strings(&mut self, list: Pair<Rule>) -> Vec<StrLit> {
        list.into_inner()
            .filter(|p| p.as_rule() == Rule::string)
            .map(|p| self.string(p))
            .collect()
    }

    fn operator(&mut self, op: Pair<Rule>) -> CondOp {
        let op_rule = op.as_rule();
        let mut inner = op.into_inner().filter(|p| {
            !matches!(
                p.as_rule(),
                Rule::kw_in | Rule::kw_matches | Rule::kw_contains | Rule::kw_any
            )
        });
        match op_rule {
            Rule::present => CondOp::Present,
            Rule::str_eq => CondOp::StrEq(
                inner
                    .next()
                    .map(|s| self.string(s))
                    .unwrap_or_else(empty_lit),
            ),
            Rule::str_ne => CondOp::StrNe(
                inner
                    .next()
                    .map(|s| self.string(s))
                    .unwrap_or_else(empty_lit),
            ),
            Rule::num_cmp => {
                let cmp = match inner.next().map(|c| c.as_str()) {
                    Some("<") => CmpOp::Lt,
                    Some("<=") => CmpOp::Le,
                    Some(">") => CmpOp::Gt,
                    Some(">=") => CmpOp::Ge,
                    Some("!=") => CmpOp::Ne,
                    _ => CmpOp::Eq,
                };
                match inner.next() {
                    Some(n) => {
                        let nspan = self.span(&n);
                        CondOp::Num(cmp, self.number(n.as_str(), nspan), nspan)
                    }
                    None => CondOp::Present,
                }
            }
            Rule::in_list => CondOp::In(inner.next().map(|l| self.strings(l)).unwrap_or_default()),
            Rule::matches => match inner.next() {
                Some(p) if p.as_rule() == Rule::regex => CondOp::Regex(self.regex(p)),
                Some(p) if p.as_rule() == Rule::shell_pattern => CondOp::Shell(
                    p.into_inner()
                        .find(|q| q.as_rule() == Rule::string)
                        .map(|s| self.string(s))
                        .unwrap_or_else(empty_lit),
                ),
                Some(p) => CondOp::Glob(self.string(p)),
                None => CondOp::Present,
            },
            Rule::contains_any => {
                CondOp::ContainsAny(inner.next().map(|l| self.strings(l)).unwrap_or_default())
            }
            Rule::contains => CondOp::Contains(
                inner
                    .next()
                    .map(|s| self.string(s))
                    .unwrap_or_else(empty_lit),
            ),
            _ => CondOp::Present,
        }
    }

    fn number(&mut self, text: &str, span: Span) -> f64 {
        match text.parse::<f64>() {
            Ok(n) if n.is_finite() => n,
            _ => {
                self.diags.push(
                    Diagnostic::new(
                        &code::INVALID_NUMBER,
                        span,
                        format!("`{text}` is not a finite number"),
                    )
                    .with_label("out of range")
                    .with_help("write a number within the range of a 64-bit float"),
                );
                0.0
            }
        }
    }

    fn test(&mut self, pair: Pair<Rule>) -> TestBlock {
        let span = self.span(&pair);
        let mut name = None;
        let mut expectations = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::string => name = Some(self.string(p)),
                Rule::expectation => expectations.push(self.expectation(p)),
                _ => {}
            }
        }
        TestBlock {
            name: name.unwrap_or_else(|| StrLit {
                value: String::new(),
                span,
            }),
            expectations,
            span,
        }
    }

    fn expectation(&mut self, pair: Pair<Rule>) -> Expectation {
        let span = self.span(&pair);
        let mut expect = Effect::Deny;
        let mut agent = None;
        let mut server = None;
        let mut tool = None;
        let mut args = serde_json::Map::new();
        let mut needs = None;
        let mut reason = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::effect => expect = effect_of(p),
                Rule::name => agent = Some(self.name(p)),
                Rule::test_tool => {
                    let mut names: Vec<Name> = p.into_inner().map(|n| self.name(n)).collect();
                    tool = names.pop();
                    server = names.pop();
                }
                Rule::object => {
                    if let serde_json::Value::Object(m) = self.object(p) {
                        args = m;
                    }
                }
                Rule::test_needs => {
                    needs = Some(
                        p.into_inner()
                            .filter(|q| q.as_rule() == Rule::permission)
                            .map(|q| self.permission(q))
                            .collect(),
                    )
                }
                Rule::reason => {
                    reason = Some(Name {
                        text: p.as_str().to_string(),
                        quoted: false,
                        span: self.span(&p),
                    })
                }
                _ => {}
            }
        }
        Expectation {
            expect,
            agent: agent.unwrap_or_else(|| self.missing_name(span)),
            server,
            tool: tool.unwrap_or_else(|| self.missing_name(span)),
            args,
            needs,
            reason,
            span,
        }
    }

    fn object(&mut self, pair: Pair<Rule>) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        for kv in pair.into_inner().filter(|p| p.as_rule() == Rule::pair) {
            let mut it = kv.into_inner().filter(|p| p.as_rule() != Rule::colon);
            let (Some(k), Some(v)) = (it.next(), it.next()) else {
                continue;
            };
            let key = self.name(k);
            if map.contains_key(&key.text) {
                self.diags.push(
                    Diagnostic::new(
                        &code::DUPLICATE_KEY,
                        key.span,
                        format!("duplicate key `{}`", key.text),
                    )
                    .with_label("already given in this object")
                    .with_help("give each argument once"),
                );
            }
            let value = self.value(v);
            map.insert(key.text, value);
        }
        serde_json::Value::Object(map)
    }

    fn value(&mut self, pair: Pair<Rule>) -> serde_json::Value {
        use serde_json::Value;
        let Some(inner) = pair.into_inner().next() else {
            return Value::Null;
        };
        match inner.as_rule() {
            Rule::object => self.object(inner),
            Rule::array => Value::Array(
                inner
                    .into_inner()
                    .filter(|p| p.as_rule() == Rule::value)
                    .map(|p| self.value(p))
                    .collect(),
            ),
            Rule::string => Value::String(self.string(inner).value),
            Rule::number => {
                let span = self.span(&inner);
                match serde_json::from_str::<Value>(inner.as_str()) {
                    Ok(v @ Value::Number(_)) => v,
                    _ => {
                        self.diags.push(
                            Diagnostic::new(
                                &code::INVALID_NUMBER,
                                span,
                                format!("`{}` is not a JSON number", inner.as_str()),
                            )
                            .with_label("not a JSON number")
                            .with_help("write numbers as in JSON: no leading zeros, within range"),
                        );
                        Value::Null
                    }
                }
            }
            Rule::kw_true => Value::Bool(true),
            Rule::kw_false => Value::Bool(false),
            _ => Value::Null,
        }
    }
}

type Rule_ = super::ast::Rule;

fn effect_of(pair: Pair<Rule>) -> Effect {
    if pair.as_str() == "allow" {
        Effect::Allow
    } else {
        Effect::Deny
    }
}

/// Whether a line holds a `#` or `//`, the only places a comment can start: a quick test
/// that spares nearly every span the full scan of [`comment_start`].
fn has_comment_marker(line: &str) -> bool {
    let mut rest = line.as_bytes();
    while let Some(i) = memchr::memchr2(b'#', b'/', rest) {
        if rest.get(i) == Some(&b'#') || rest.get(i + 1) == Some(&b'/') {
            return true;
        }
        rest = rest.get(i + 1..).unwrap_or_default();
    }
    false
}

fn empty_lit() -> StrLit {
    StrLit {
        value: String::new(),
        span: Span::default(),
    }
}
