//! The host API: PermissionSet semantics against a model, the permission wrapper, the
//! agent-SDK callback, tool results, and one engine shared by many threads.

use proptest::prelude::*;
use serde_json::{json, Value};
use std::sync::Arc;
use toolgate::host::{
    with_permissions, with_permissions_all, PermissionResult, PermissionSet, Tool, ToolCall,
    ToolError,
};
use toolgate::resolve::{parse_permission, Permission};

struct Counting {
    name: &'static str,
    needs: Vec<Permission>,
    runs: std::sync::atomic::AtomicUsize,
}

impl Tool for Counting {
    fn name(&self) -> &str {
        self.name
    }
    fn permissions(&self) -> &[Permission] {
        &self.needs
    }
    fn execute(&self, input: &Value) -> Result<Value, ToolError> {
        self.runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(input.clone())
    }
}

fn tool(name: &'static str, needs: &[&str]) -> Counting {
    Counting {
        name,
        needs: needs.iter().map(|p| parse_permission(p).unwrap()).collect(),
        runs: 0.into(),
    }
}

#[test]
fn a_refused_call_never_runs_and_names_the_first_missing_permission() {
    let guarded = with_permissions(
        tool("upload", &["fs:read", "net:http"]),
        PermissionSet::new(["net:http"]).unwrap(),
    );
    match guarded.execute(&json!({})) {
        Err(ToolError::PermissionDenied(e)) => {
            assert_eq!(e.tool, "upload");
            assert_eq!(e.permission.to_string(), "fs:read");
            assert_eq!(
                e.to_string(),
                "upload requires the \"fs:read\" permission, which was not granted.\nRetrying with different arguments will not help"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        guarded
            .inner()
            .runs
            .load(std::sync::atomic::Ordering::SeqCst),
        0
    );
    let none = with_permissions(
        tool("upload", &["fs:read", "net:http"]),
        PermissionSet::none(),
    );
    let Err(ToolError::PermissionDenied(e)) = none.execute(&json!({})) else {
        panic!()
    };
    assert_eq!(
        e.permission.to_string(),
        "fs:read",
        "first in declaration order"
    );
}

#[test]
fn a_granted_call_runs() {
    let tools = with_permissions_all(
        [tool("read", &["fs:read"]), tool("free", &[])],
        &PermissionSet::new(["fs:*"]).unwrap(),
    );
    assert_eq!(tools[0].execute(&json!({"a": 1})).unwrap(), json!({"a": 1}));
    assert_eq!(tools[1].execute(&json!(2)).unwrap(), json!(2));
    assert_eq!(
        tools[0]
            .inner()
            .runs
            .load(std::sync::atomic::Ordering::SeqCst),
        1
    );
}

#[test]
fn the_callback_answers_from_the_policy_and_denials_are_tool_results() {
    let engine = Arc::new(
        toolgate::load::engine_from_str(
            "example.policy",
            include_str!("../policies/example.policy"),
        )
        .unwrap(),
    );
    let permission = engine.permission_callback("code-assistant");
    let call = |name: &str, input: Value| ToolCall {
        tool_name: name.into(),
        input,
        tool_use_id: Some("toolu_9".into()),
        ..ToolCall::default()
    };
    assert_eq!(
        permission(&call(
            "Bash",
            json!({"command": "npm run build", "timeout": 60})
        )),
        PermissionResult::Allow
    );
    assert_eq!(
        permission(&call("Bash", json!({"command": "sudo ls"}))),
        PermissionResult::Deny {
            message: "Destructive shell commands are disabled for this session.".into()
        }
    );
    let d =
        engine.decide(&call("Bash", json!({"command": "sudo ls"})).to_request("code-assistant"));
    assert_eq!(
        d.to_tool_result(None),
        json!({"type": "tool_result", "tool_use_id": "toolu_9", "is_error": true, "content": "Destructive shell commands are disabled for this session."})
    );
    assert_eq!(d.to_tool_result(Some("other"))["tool_use_id"], "other");
}

#[test]
fn many_threads_share_one_engine() {
    let engine = Arc::new(
        toolgate::load::engine_from_str(
            "example.policy",
            include_str!("../policies/example.policy"),
        )
        .unwrap(),
    );
    let reqs: Vec<toolgate::Request> = [
        "/home/user/projects/a",
        "/home/user/projects/../../etc",
        "/srv/x",
        "rel",
    ]
    .iter()
    .flat_map(|p| {
        ["code-assistant", "reviewer"].map(|a| {
            toolgate::Request::new(a, "git_log")
                .server("git")
                .args(json!({ "repo_path": p }))
        })
    })
    .collect();
    let expected: Vec<String> = reqs
        .iter()
        .map(|r| serde_json::to_string(&engine.decide(r)).unwrap())
        .collect();
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let (engine, reqs, expected) = (Arc::clone(&engine), reqs.clone(), expected.clone());
            std::thread::spawn(move || {
                for _ in 0..200 {
                    for (r, e) in reqs.iter().zip(&expected) {
                        assert_eq!(&serde_json::to_string(&engine.decide(r)).unwrap(), e);
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

fn grant_item() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("*".to_string()),
        (
            prop::sample::select(vec!["fs", "net", "proc"]),
            prop::sample::select(vec!["read", "write", "*"])
        )
            .prop_map(|(d, a)| format!("{d}:{a}")),
    ]
}

proptest! {
    /// Membership agrees with the model: exact, domain wildcard, or everything; grant() widens
    /// a copy and never changes the original.
    #[test]
    fn permission_sets_behave_like_the_model(
        first in proptest::collection::vec(grant_item(), 0..4),
        more in proptest::collection::vec(grant_item(), 0..4),
        d in prop::sample::select(vec!["fs", "net", "proc", "mail"]),
        a in prop::sample::select(vec!["read", "write", "exec"]),
    ) {
        let base = PermissionSet::new(&first).unwrap();
        let before = base.clone();
        let wider = base.grant(&more).unwrap();
        prop_assert_eq!(&base, &before);
        let perm = format!("{d}:{a}");
        let model = |items: &[String]| items.iter().any(|g| g == "*" || *g == perm || *g == format!("{d}:*"));
        prop_assert_eq!(base.allows(&perm), model(&first));
        let all: Vec<String> = first.iter().chain(&more).cloned().collect();
        prop_assert_eq!(wider.allows(&perm), model(&all));
        prop_assert!(!base.allows(&perm) || wider.allows(&perm));
    }
}

proptest! {
    /// With many domains (binary search) and with malformed texts: `allows` is true exactly
    /// when the text is a well-formed permission the grants cover, and `contains` agrees.
    #[test]
    fn membership_with_many_domains_and_malformed_texts(
        grants in proptest::collection::vec((0usize..14, prop::sample::select(vec!["read", "write", "*"])), 0..30),
        all in any::<bool>(),
        query in prop_oneof![
            (0usize..16, prop::sample::select(vec!["read", "write", "exec"]))
                .prop_map(|(d, a)| format!("d{d}:{a}")),
            prop::sample::select(vec![
                "d1:", ":read", "d1:read:x", "D1:read", "d1:Read", "d1", "", "d1:re ad", "d1:*",
            ]).prop_map(String::from),
        ],
    ) {
        let mut items: Vec<String> = grants.iter().map(|(d, a)| format!("d{d}:{a}")).collect();
        if all {
            items.push("*".into());
        }
        let set = PermissionSet::new(&items).unwrap();
        let well_formed = toolgate::resolve::parse_permission(&query).is_ok();
        let covered = items.iter().any(|g| {
            g == "*" || *g == query || query.split_once(':').is_some_and(|(d, _)| *g == format!("{d}:*"))
        });
        prop_assert_eq!(set.allows(&query), well_formed && covered, "{:?} {}", items, query);
        if let Ok(p) = toolgate::resolve::parse_permission(&query) {
            prop_assert_eq!(set.contains(&p), covered);
        }
    }
}
