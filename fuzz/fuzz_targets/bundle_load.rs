//! Bundle loading: `Engine::from_bundle` on arbitrary bytes must return an engine or a
//! `BundleError`, never panic. The checksum rejects almost every random mutation before
//! decoding, so the input is used twice: as a whole file, and as a payload sealed in a valid
//! envelope (magic, version, length and SHA-256 recomputed), which reaches the decoder and its
//! validation. An engine that loads must then decide requests without failing
//! (`internal_error` would mean validation let an inconsistent table through).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sha2::{Digest, Sha256};
use toolgate::bundle::{FORMAT_VERSION, MAGIC};
use toolgate::{Engine, Request};

fn seal(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(56 + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(payload));
    out.extend_from_slice(payload);
    out
}

fn exercise(engine: &Engine) -> Vec<toolgate::Decision<'_>> {
    let mut out = Vec::new();
    let agents: Vec<String> = engine.agent_names().map(String::from).take(4).collect();
    for agent in agents.iter().map(String::as_str).chain(["nobody"]) {
        let _ = engine.visible_tools(agent);
        for (server, tool) in [
            (None, "t"),
            (Some("git"), "git_log"),
            (None, "Bash"),
            (None, "read_file"),
        ] {
            let mut req = Request::new(agent, tool).args(serde_json::json!({
                "p": "/a/../b", "path": ["/etc/passwd", 1], "command": "npm run x",
                "repo_path": {"x": null}, "timeout": 600,
            }));
            req.server = server.map(String::from);
            req.permissions = Some(vec!["fs:read".into(), "net:http".into()]);
            for d in [engine.decide(&req), engine.decide_explained(&req)] {
                assert_ne!(
                    d.reason.as_str(),
                    "internal_error",
                    "a loaded bundle failed to decide"
                );
                out.push(d);
            }
        }
    }
    out
}

/// A loaded engine writes a bundle that loads again and decides the same. (The policy hash
/// may differ: it is the hash of the payload bytes, and a fuzzed payload that decodes need
/// not be in the canonical encoding that `to_bundle` writes.)
fn round_trip(engine: &Engine) {
    let unhashed = |ds: Vec<toolgate::Decision>| {
        ds.into_iter()
            .map(|d| toolgate::Decision {
                policy_hash: "".into(),
                ..d.into_owned()
            })
            .collect::<Vec<_>>()
    };
    let first = unhashed(exercise(engine));
    let again = Engine::from_bundle(&engine.to_bundle()).expect("a re-encoded bundle loads");
    assert_eq!(unhashed(exercise(&again)), first);
}

fuzz_target!(|data: &[u8]| {
    if let Ok(engine) = Engine::from_bundle(data) {
        round_trip(&engine);
    }
    if let Ok(engine) = Engine::from_bundle(&seal(data)) {
        round_trip(&engine);
    }
});
