//! Every diagnostic code toolgate reports, declared once: its name, severity and one-line
//! summary. Every stage (syntax, resolve, compile, lint, testing, load, and the gateway's drift
//! check) builds its diagnostics from these constants with
//! [`Diagnostic::new`](super::Diagnostic::new); the lints of `src/lint/rules/` document
//! theirs, and [`crate::lint::registry`] lists them all.

use super::Severity;

/// A diagnostic code: `toolgate::<name>`, its severity and what it reports.
///
/// # Example
///
/// ```
/// use toolgate::diagnostic::code;
/// assert_eq!(code::UNKNOWN_TOOL.code, "toolgate::unknown_tool");
/// assert_eq!(code::LIMIT_NESTING.name, "limit::nesting");
/// assert!(code::ALL.iter().any(|c| c.code == "toolgate::syntax"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    /// The name without the `toolgate::` prefix (`unknown_tool`, `limit::nesting`); a lint's
    /// name is what `# toolgate: allow(<name>)` uses.
    pub name: &'static str,
    /// The stable code, `toolgate::<name>`.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// One line: what the code reports.
    pub summary: &'static str,
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code)
    }
}

/// Declares the codes, and [`ALL`] listing them.
macro_rules! codes {
    ($($ident:ident = ($name:literal, $sev:ident, $summary:literal);)*) => {
        $(
            #[doc = concat!("`toolgate::", $name, "`: ", $summary, ".")]
            pub const $ident: Code = Code {
                name: $name,
                code: concat!("toolgate::", $name),
                severity: Severity::$sev,
                summary: $summary,
            };
        )*
        /// Every code declared here, lints first (sorted by name), then the others.
        pub const ALL: &[&Code] = &[$(&$ident),*];
    };
}

codes! {
    // Lints: each is documented in its file under src/lint/rules/.
    ALTERNATIVES_HIDE_PATH = ("alternatives_hide_path", Warning, "leading `{...}` alternatives hide a path pattern: the glob is not normalized");
    COMMAND_AS_TEXT = ("command_as_text", Warning, "a shell command is judged as text (a glob, regex or `contains`) instead of parsed");
    COMPARISON_UNDECIDED = ("comparison_undecided", Warning, "`redundant_allow` and `dead_allow` could not decide whether some rules are covered");
    CONDITION_TYPE_MISMATCH = ("condition_type_mismatch", Warning, "a condition cannot apply to its argument's declared type");
    DEAD_ALLOW = ("dead_allow", Warning, "a `deny` of the same agent refuses every call an `allow` admits");
    DENY_NEVER_FIRES = ("deny_never_fires", Warning, "every tool a `deny` rule targets needs a permission the agent is not granted");
    DUPLICATE_DEFINITION = ("duplicate_definition", Error, "a server, tool, agent or argument is defined twice");
    DUPLICATE_PERMISSION = ("duplicate_permission", Warning, "a tool's `needs` lists the same permission twice");
    INVALID_GLOB = ("invalid_glob", Error, "a glob in a condition or a rule target cannot be parsed");
    INVALID_REGEX = ("invalid_regex", Error, "a regex is invalid, uses look-around or backreferences, or nests too deep");
    INVALID_SHELL_PATTERN = ("invalid_shell_pattern", Error, "a `shell` pattern cannot be parsed");
    NEEDS_IGNORED = ("needs_ignored", Warning, "a test expectation gives `needs`, but the catalog's permissions are used");
    PATH_NOT_NORMALIZABLE = ("path_not_normalizable", Error, "a path pattern cannot be put in normal form");
    PATH_PATTERN_NOT_NORMAL = ("path_pattern_not_normal", Warning, "a path pattern is not written in normal form; it is matched normalized");
    POINTLESS_ALLOW = ("pointless_allow", Warning, "an `allow` rule in an agent that is `default allow` changes nothing");
    REDUNDANT_ALLOW = ("redundant_allow", Warning, "another `allow` of the same agent already admits every call this one admits");
    REDUNDANT_GRANT = ("redundant_grant", Warning, "a granted permission another grant of the same agent already covers");
    RELATIVE_GLOB_IN_ALLOW = ("relative_glob_in_allow", Warning, "a plain glob in an `allow` condition looks like a path but is not normalized");
    RELATIVE_GLOB_IN_DENY = ("relative_glob_in_deny", Warning, "a plain glob in a `deny` condition looks like a path but is compared as written");
    SHELL_GLOB_PATH = ("shell_glob_path", Warning, "an argument glob with a `/` in a shell `allow` pattern: arguments are compared as written, `..` included");
    SUBSTRING_ALLOW = ("substring_allow", Warning, "`contains` in an `allow` condition admits anything around the substring");
    TARGET_MATCHES_NOTHING = ("target_matches_nothing", Warning, "a glob rule target matches no declared server or tool");
    TOOL_NAME_COLLISION = ("tool_name_collision", Error, "a host tool is named like a server's tool is printed (`server.tool`)");
    UNANCHORED_REGEX = ("unanchored_regex", Warning, "a regex in an `allow` condition is not anchored: it matches anywhere in the value");
    UNKNOWN_ARGUMENT = ("unknown_argument", Error, "a condition names an argument none of the targeted tools declares");
    UNKNOWN_LINT = ("unknown_lint", Error, "a suppression comment names an unknown lint, or is malformed");
    UNKNOWN_NAME_IN_TEST = ("unknown_name_in_test", Warning, "a test expectation names an agent, server or tool the policy does not define");
    UNKNOWN_SERVER = ("unknown_server", Error, "a literal server name in a rule target is not declared");
    UNKNOWN_TOOL = ("unknown_tool", Error, "a literal tool name in a rule target is not declared");
    UNKNOWN_TYPE = ("unknown_type", Error, "a declared argument type is not a known type, or misuses `array<...>`");
    UNREACHABLE_HOST_TOOL = ("unreachable_host_tool", Warning, "a host tool shares its name with a server's tool, so no request can reach it");
    UNREACHABLE_RULE = ("unreachable_rule", Warning, "every tool an `allow` rule targets needs a permission the agent is not granted");
    UNSATISFIABLE_CONDITION = ("unsatisfiable_condition", Warning, "no argument value satisfies a condition, or two conditions of an `allow` together");
    UNUSED_GRANT = ("unused_grant", Warning, "with a catalog, a granted permission no tool needs");
    UNUSED_SUPPRESSION = ("unused_suppression", Warning, "a suppression comment silences nothing");
    WILDCARD_DOMAIN = ("wildcard_domain", Error, "`*:action`: a wildcard must not stand for the domain");
    // The other codes (syntax, limits, compile, tests): docs/language.md section 17.
    SYNTAX = ("syntax", Error, "the text does not follow the grammar");
    INVALID_ESCAPE = ("invalid_escape", Error, "a string literal holds an unknown or malformed escape, or a raw control character");
    INVALID_NUMBER = ("invalid_number", Error, "a number is not finite, or a test value is not a valid JSON number");
    DUPLICATE_KEY = ("duplicate_key", Error, "a key is given twice in one object of a test's arguments");
    EMPTY_NAME = ("empty_name", Error, "an empty quoted name");
    INVALID_PERMISSION = ("invalid_permission", Error, "a permission is not `domain:action` with lowercase parts, or `needs` uses a wildcard");
    DUPLICATE_DEFAULT = ("duplicate_default", Error, "an agent has a second `default`");
    BECAUSE_ON_ALLOW = ("because_on_allow", Error, "`because` on an `allow` rule");
    UNKNOWN_REASON = ("unknown_reason", Error, "a test expectation names a reason that does not exist");
    LIMIT_FILE_SIZE = ("limit::file_size", Error, "a policy file is larger than 8 MiB");
    LIMIT_NESTING = ("limit::nesting", Error, "brackets nest deeper than 64 levels in a policy file");
    LIMIT_TABLE_SIZE = ("limit::table_size", Error, "a compiled table would number more entries than a 32-bit ID holds");
    AUTOMATON_TOO_LARGE = ("automaton_too_large", Error, "the patterns an agent places on one argument exceed the automaton size limit");
    AUTOMATON_BUILD = ("automaton_build", Error, "the patterns on one argument cannot be compiled together");
    INTERNAL_ERROR = ("internal_error", Error, "the compiled policy failed its own validation (a bug in toolgate)");
    TEST_FAILED = ("test_failed", Error, "a test expectation did not hold");
    // The gateway's catalog drift (`toolgate-gateway check --against`): docs/language.md
    // section 17 and gateway/README.md.
    DRIFT_TOOL_MISSING_UPSTREAM = ("drift_tool_missing_upstream", Error, "the catalog declares a tool its server's upstream does not offer");
    DRIFT_TOOL_NOT_IN_CATALOG = ("drift_tool_not_in_catalog", Warning, "an upstream offers a tool the catalog does not declare, so it is never listed or callable");
    DRIFT_REQUIRED_ARGUMENT_UNDECLARED = ("drift_required_argument_undeclared", Error, "an upstream's inputSchema requires an argument the catalog does not declare");
    DRIFT_ARGUMENT_NOT_IN_SCHEMA = ("drift_argument_not_in_schema", Warning, "the catalog declares an argument the upstream's inputSchema lacks");
    DRIFT_ARGUMENT_OPTIONALITY = ("drift_argument_optionality", Warning, "the catalog requires an argument the upstream's inputSchema makes optional");
    DRIFT_ARGUMENT_TYPE = ("drift_argument_type", Warning, "a declared argument type disagrees with the type the upstream's inputSchema states");
    DRIFT_SERVER_WITHOUT_UPSTREAM = ("drift_server_without_upstream", Error, "a server of the policy has no upstream in the gateway config");
    DRIFT_TOOL_NAME_COLLISION = ("drift_tool_name_collision", Error, "one name the gateway shows would reach two tools the upstreams offer");
    DRIFT_TOOL_LISTED_TWICE = ("drift_tool_listed_twice", Warning, "an upstream lists a tool more than once");
}
