//! Did-you-mean: the closest known name within a bounded edit distance.

/// The candidate closest to `name`, if it is close enough to be a plausible typo.
///
/// # Example
///
/// ```
/// use toolgate::resolve::suggest::did_you_mean;
/// assert_eq!(did_you_mean("git_lgo", ["git_log", "query"]), Some("git_log"));
/// assert_eq!(did_you_mean("deploy", ["git_log", "query"]), None);
/// ```
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (strsim::damerau_levenshtein(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

/// `" (did you mean `x`?)"`-style help, or a fallback.
///
/// # Example
///
/// ```
/// use toolgate::resolve::suggest::help_with;
/// assert_eq!(help_with("qurey", ["query"], "no such tool"), "did you mean `query`?");
/// assert_eq!(help_with("deploy", ["query"], "no such tool"), "no such tool");
/// ```
pub fn help_with<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    fallback: &str,
) -> String {
    match did_you_mean(name, candidates) {
        Some(s) => format!("did you mean `{s}`?"),
        None => fallback.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn suggests_close_names_only() {
        let names = ["git_log", "git_commit", "query"];
        assert_eq!(did_you_mean("git_lgo", names), Some("git_log"));
        assert_eq!(did_you_mean("qurey", names), Some("query"));
        assert_eq!(did_you_mean("deploy", names), None);
    }
}
