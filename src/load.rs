//! Reading policies: files and folders of `.policy` files into one merged policy, with the
//! documented limits checked before parsing.

use crate::diagnostic::{code, Diagnostic, Diagnostics, PolicyError, Severity};
use crate::engine::Engine;
use crate::lint::suppress::Suppressions;
use crate::resolve::{resolve, Policy};
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::parse_file;
use std::path::{Path, PathBuf};

/// The largest policy file accepted, in bytes.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("big.policy", " ".repeat(toolgate::load::MAX_FILE_BYTES + 1));
/// let (_, diags) = toolgate::load::policy_from_sources(m);
/// assert_eq!(diags.iter().next().unwrap().code, "toolgate::limit::file_size");
/// ```
pub const MAX_FILE_BYTES: usize = 8 << 20;
/// The deepest bracket nesting accepted in a policy file.
///
/// # Example
///
/// ```
/// let deep = format!("tool t{}", "(".repeat(toolgate::load::MAX_NESTING + 1));
/// let err = toolgate::load::engine_from_str("deep.policy", &deep).unwrap_err();
/// assert_eq!(err.diagnostics.iter().next().unwrap().code, "toolgate::limit::nesting");
/// ```
pub const MAX_NESTING: usize = 64;

/// A problem reading the files themselves (not their content).
///
/// # Example
///
/// ```
/// let err = toolgate::load::policy_files("/no/such/dir".as_ref()).unwrap_err();
/// assert_eq!(err.path, std::path::Path::new("/no/such/dir"));
/// assert!(err.to_string().starts_with("/no/such/dir: "));
/// ```
#[derive(Debug)]
pub struct LoadError {
    /// The path involved.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for LoadError {}

/// Lists the policy files a path stands for: the file itself, or the `.policy` files directly
/// inside a folder (sorted by name; subfolders are not entered).
///
/// # Example
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("b.policy"), "").unwrap();
/// std::fs::write(dir.path().join("a.policy"), "").unwrap();
/// std::fs::write(dir.path().join("notes.txt"), "").unwrap();
/// let files = toolgate::load::policy_files(dir.path()).unwrap();
/// assert_eq!(files, [dir.path().join("a.policy"), dir.path().join("b.policy")]);
/// ```
pub fn policy_files(path: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let meta = std::fs::metadata(path).map_err(|e| LoadError {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let entries = std::fs::read_dir(path).map_err(|e| LoadError {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "policy"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(LoadError {
            path: path.to_path_buf(),
            message: "folder holds no .policy files".into(),
        });
    }
    Ok(files)
}

/// Reads every policy file the paths stand for into a source map.
///
/// # Example
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("p.policy");
/// std::fs::write(&path, "agent a {}").unwrap();
/// let m = toolgate::load::read_sources(&[path.clone(), path]).unwrap();
/// assert_eq!(m.files().count(), 1); // the same file named twice is loaded once
/// ```
pub fn read_sources(paths: &[PathBuf]) -> Result<SourceMap, LoadError> {
    let mut sources = SourceMap::new();
    let mut seen = std::collections::HashSet::new();
    for path in paths {
        for file in policy_files(path)? {
            // The same file named twice (`a.policy ./a.policy`) is loaded once.
            if !seen.insert(std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone())) {
                continue;
            }
            let bytes = std::fs::read(&file).map_err(|e| LoadError {
                path: file.clone(),
                message: e.to_string(),
            })?;
            let text = String::from_utf8(bytes).map_err(|e| LoadError {
                path: file.clone(),
                message: format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()),
            })?;
            sources.add(file.display().to_string(), text);
        }
    }
    Ok(sources)
}

/// Parses and resolves every file of a source map into one policy, with all diagnostics.
/// Warnings silenced by a `# toolgate: allow(...)` comment are left out.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "agent a { grant *:read }");
/// let (_, diags) = toolgate::load::policy_from_sources(m);
/// assert!(diags.has_errors());
/// ```
pub fn policy_from_sources(sources: SourceMap) -> (Policy, Diagnostics) {
    let (policy, diags, _) = resolve_sources(sources);
    (policy, diags)
}

/// Parses and resolves; also returns the suppression comments, with their use so far.
fn resolve_sources(sources: SourceMap) -> (Policy, Diagnostics, Suppressions) {
    let mut diags = Diagnostics::new();
    let mut files = Vec::new();
    let ids: Vec<FileId> = sources.files().map(|(id, _)| id).collect();
    for id in ids {
        let text = sources.file(id).text.clone();
        if let Some(d) = check_limits(id, &text) {
            diags.push(d);
            continue;
        }
        let (file, errs) = parse_file(id, &text);
        diags.extend(errs);
        files.push(file);
    }
    let (mut suppressions, errs) = Suppressions::collect(&sources, &files);
    diags.extend(errs);
    let (policy, more) = resolve(sources, files);
    diags.extend(more);
    let diags = suppressions.apply(diags);
    (policy, diags, suppressions)
}

/// Everything `toolgate check` reports: parses, resolves and compiles the policy, then runs
/// every lint (see [`crate::lint`]). The policy is usable only when the diagnostics hold no
/// error. Lints run even when there are errors, leaving out the rules an error touches.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t\nagent a { allow t\n allow t }");
/// let (_, diags) = toolgate::load::check_sources(m);
/// assert!(!diags.has_errors() && diags.warning_count() > 0);
/// ```
pub fn check_sources(sources: SourceMap) -> (Policy, Diagnostics) {
    let (policy, mut diags, mut suppressions) = resolve_sources(sources);
    if !diags.has_errors() {
        if let Err(more) = crate::compile::compile(&policy) {
            diags.extend(more);
        }
    }
    let errors: Vec<Span> = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.span)
        .collect();
    let lints = crate::lint::run(&policy, &errors);
    diags.extend(suppressions.apply(lints));
    diags.extend(suppressions.unused());
    (policy, diags)
}

fn check_limits(id: FileId, text: &str) -> Option<Diagnostic> {
    if text.len() > MAX_FILE_BYTES {
        return Some(
            Diagnostic::new(
                &code::LIMIT_FILE_SIZE,
                Span::new(id, 0, 0),
                format!(
                    "file is {} bytes; the limit is {MAX_FILE_BYTES}",
                    text.len()
                ),
            )
            .with_label("this file")
            .with_help("split the policy into several files in one folder"),
        );
    }
    let (mut depth, mut in_str, mut in_comment, mut escaped) = (0usize, false, false, false);
    let mut prev = '\0';
    for (i, c) in text.char_indices() {
        if in_comment {
            in_comment = c != '\n';
        } else if in_str {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' || c == '\n' {
                in_str = false;
            }
        } else {
            match c {
                '"' => in_str = true,
                '#' => in_comment = true,
                '/' if prev == '/' => in_comment = true,
                '{' | '[' | '(' => {
                    depth += 1;
                    if depth > MAX_NESTING {
                        return Some(
                            Diagnostic::new(
                                &code::LIMIT_NESTING,
                                Span::new(id, i, i + 1),
                                format!("brackets nest deeper than {MAX_NESTING} levels"),
                            )
                            .with_label("too deep")
                            .with_help("flatten the test arguments"),
                        );
                    }
                }
                '}' | ']' | ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        prev = c;
    }
    None
}

/// Parses, resolves and compiles a source map into an engine.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t\nagent a { allow t }");
/// let (engine, policy, diags) = toolgate::load::engine_from_sources(m).unwrap();
/// assert!(engine.decide(&toolgate::Request::new("a", "t")).is_allowed());
/// assert!(diags.is_empty() && policy.agent("a").is_some());
/// ```
pub fn engine_from_sources(
    sources: SourceMap,
) -> Result<(Engine, Policy, Diagnostics), PolicyError> {
    let (policy, diags) = policy_from_sources(sources);
    if diags.has_errors() {
        return Err(PolicyError {
            diagnostics: diags,
            sources: policy.sources,
        });
    }
    match compile_engine(&policy) {
        Ok(engine) => Ok((engine, policy, diags)),
        Err(more) => {
            let mut all = diags;
            all.extend(more);
            Err(PolicyError {
                diagnostics: all,
                sources: policy.sources,
            })
        }
    }
}

/// Compiles a resolved policy into a program and loads the engine from it. A compiled program
/// that fails its own validation (a compiler bug: its bundle would not load) is an error.
fn compile_engine(policy: &Policy) -> Result<Engine, Diagnostics> {
    let program = crate::compile::compile(policy)?;
    Engine::from_program(program).map_err(|e| {
        let file = policy.sources.files().next().map(|(id, _)| id);
        let mut diags = Diagnostics::new();
        if let Some(file) = file {
            diags.push(
                Diagnostic::new(
                    &code::INTERNAL_ERROR,
                    Span::new(file, 0, 0),
                    format!("the compiled policy failed its own validation: {e}"),
                )
                .with_label("compiling this policy")
                .with_help("this is a bug in toolgate; please report it with the policy"),
            );
        }
        diags
    })
}

/// Compiles policy text held in memory (`name` is used in diagnostics).
///
/// # Errors
///
/// A [`PolicyError`] holding every diagnostic when the policy has errors.
///
/// ```
/// let engine = toolgate::load::engine_from_str("inline.policy", "tool t\nagent a { allow t }").unwrap();
/// assert!(engine.decide(&toolgate::Request::new("a", "t")).is_allowed());
/// let err = toolgate::load::engine_from_str("bad.policy", "agent a { grant *:read }").unwrap_err();
/// assert_eq!(err.diagnostics.iter().next().unwrap().code, "toolgate::wildcard_domain");
/// ```
pub fn engine_from_str(name: &str, text: &str) -> Result<Engine, PolicyError> {
    let mut sources = SourceMap::new();
    sources.add(name, text);
    engine_from_sources(sources).map(|(e, _, _)| e)
}

/// Why [`engine_from_paths`] could not load a policy.
#[derive(Debug)]
pub enum LoadFailure {
    /// A file or folder could not be read (a usage or I/O problem).
    Io(LoadError),
    /// The file is a bundle, but it is corrupt, truncated, foreign or of another version.
    Bundle {
        /// The bundle's path.
        path: PathBuf,
        /// What is wrong with it.
        error: crate::bundle::BundleError,
    },
    /// The policy source has errors; nothing was loaded.
    Policy(PolicyError),
}

impl std::fmt::Display for LoadFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadFailure::Io(e) => write!(f, "{e}"),
            LoadFailure::Bundle { path, error } => {
                write!(f, "{}: {error} [{}]", path.display(), error.code())
            }
            LoadFailure::Policy(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for LoadFailure {}

/// What [`engine_from_paths`] loaded.
#[derive(Debug)]
pub struct Loaded {
    /// The engine, ready to decide.
    pub engine: Engine,
    /// The resolved policy, for source input only (a bundle carries none).
    pub policy: Option<Policy>,
    /// Warnings found while compiling source input (empty for a bundle).
    pub warnings: Diagnostics,
}

/// Loads the policy the paths stand for, the way every toolgate command does: a single file
/// that starts with the bundle magic bytes is loaded as a compiled bundle; anything else is
/// read as `.policy` files and folders of them, merged and compiled.
///
/// # Errors
///
/// A [`LoadFailure`] saying whether reading, the bundle or the policy failed.
///
/// # Example
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let src = dir.path().join("p.policy");
/// std::fs::write(&src, "tool t\nagent a { allow t }").unwrap();
/// let from_source = toolgate::load::engine_from_paths(&[src]).unwrap();
/// let bundle = dir.path().join("p.bundle");
/// std::fs::write(&bundle, from_source.engine.to_bundle()).unwrap();
/// let from_bundle = toolgate::load::engine_from_paths(&[bundle]).unwrap();
/// assert_eq!(from_source.engine.policy_hash(), from_bundle.engine.policy_hash());
/// assert!(from_bundle.policy.is_none());
/// ```
pub fn engine_from_paths(paths: &[PathBuf]) -> Result<Loaded, LoadFailure> {
    if let [path] = paths {
        if path.is_file() {
            let bytes = std::fs::read(path).map_err(|e| {
                LoadFailure::Io(LoadError {
                    path: path.clone(),
                    message: e.to_string(),
                })
            })?;
            if crate::bundle::looks_like_bundle(&bytes) {
                return match Engine::from_bundle(&bytes) {
                    Ok(engine) => Ok(Loaded {
                        engine,
                        policy: None,
                        warnings: Diagnostics::new(),
                    }),
                    Err(error) => Err(LoadFailure::Bundle {
                        path: path.clone(),
                        error,
                    }),
                };
            }
        }
    }
    let sources = read_sources(paths).map_err(LoadFailure::Io)?;
    engine_from_sources(sources)
        .map(|(engine, policy, warnings)| Loaded {
            engine,
            policy: Some(policy),
            warnings,
        })
        .map_err(LoadFailure::Policy)
}
