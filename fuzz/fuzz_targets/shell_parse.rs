//! Bytes -> a command line read strictly and generously -> a `shell` pattern set.
//! Any panic is a bug; so is a command the strict reading admits that the generous reading
//! neither sees nor calls unreadable (a deny would miss what an allow admits).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolgate::shell::{self, Pattern, PatternSet};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The first line (up to 200 bytes) doubles as a pattern; the whole input is the value.
    let first = text.lines().next().unwrap_or("");
    let mut end = first.len().min(200);
    while !first.is_char_boundary(end) {
        end -= 1;
    }
    let first = &first[..end];
    let mut set = PatternSet::new();
    for p in ["rm -{r,f} ...", "git log ...", "* ..."] {
        if let Ok(p) = Pattern::parse(p) {
            set.add(p);
        }
    }
    if let Ok(p) = Pattern::parse(first) {
        set.add(p);
    } else if let Err(e) = Pattern::parse(first) {
        assert!(e.span.start <= e.span.end && e.span.end <= first.len());
    }
    let strict = shell::strict(text);
    let generous = shell::generous(text);
    if let Ok(cmd) = &strict {
        assert!(
            generous.unreadable.is_some() || generous.commands.iter().any(|c| c == cmd),
            "strict admits a command the generous reading does not see"
        );
        let allow = set.allow_matches_command(cmd);
        let deny = set.deny_matches(text);
        // `* ...` matches every readable command, as an allow and as a deny.
        assert!(allow.contains(2) && deny.fires(2));
    }
    let _ = set.allow_matches(text);
});
