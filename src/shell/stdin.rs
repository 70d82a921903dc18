//! Names of standard input (and of other open file descriptors) as a file: `-`, `/dev/stdin`,
//! `/dev/fd/N`, `/proc/self/fd/N`. A shell or interpreter told to read its script from one runs
//! code the value does not show (`bash /dev/stdin <<< '...'`, `awk -f -`).

/// Whether `path` names standard input or another open file descriptor, however it is
/// spelled (`//dev/./stdin`, `/proc/thread-self/fd/0`, `../../dev/fd/3`).
///
/// ```
/// use toolgate::shell::stdin::names_a_stream;
///
/// assert!(names_a_stream("-"));
/// assert!(names_a_stream("/dev/stdin"));
/// assert!(names_a_stream("//dev/./fd/0"));
/// assert!(names_a_stream("/proc/self/fd/0"));
/// assert!(!names_a_stream("build.sh"));
/// assert!(!names_a_stream("/dev/null"));
/// ```
pub fn names_a_stream(path: &str) -> bool {
    if path == "-" {
        return true;
    }
    // Lexically: empty and `.` components dropped, `..` removes the one before it (or, at the
    // start, is dropped: above the root or an unknown working directory, the rest is what
    // counts).
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(c),
        }
    }
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match parts.as_slice() {
        ["dev", "stdin"] => true,
        ["dev", "fd", n] => number(n),
        ["proc", who, "fd", n] => {
            (matches!(*who, "self" | "thread-self") || number(who)) && number(n)
        }
        ["proc", who, "task", tid, "fd", n] => {
            (*who == "self" || number(who)) && number(tid) && number(n)
        }
        _ => false,
    }
}
