//! A small agent host: three tools guarded by a grant set, every call asked of a compiled
//! policy bundle first. Denials go back to the model as error tool results; nothing panics.
//!
//! Run: `cargo run --example host` (compiles `policies/example.policy` into a bundle first),
//! or `cargo run --example host -- path/to/policy.bundle`.

use serde_json::{json, Value};
use std::sync::Arc;
use toolgate::host::{
    with_permissions_all, PermissionResult, PermissionSet, Tool, ToolCall, ToolError,
};
use toolgate::resolve::{parse_permission, Permission};
use toolgate::Engine;

/// A host tool backed by a closure.
struct HostTool {
    name: &'static str,
    needs: Vec<Permission>,
    run: fn(&Value) -> Value,
}

impl Tool for HostTool {
    fn name(&self) -> &str {
        self.name
    }
    fn permissions(&self) -> &[Permission] {
        &self.needs
    }
    fn execute(&self, input: &Value) -> Result<Value, ToolError> {
        Ok((self.run)(input))
    }
}

fn needs(perms: &[&str]) -> Vec<Permission> {
    perms
        .iter()
        .filter_map(|p| parse_permission(p).ok())
        .collect()
}

fn load_bundle() -> Result<Engine, Box<dyn std::error::Error>> {
    let bytes = match std::env::args().nth(1) {
        Some(path) => std::fs::read(path)?,
        None => {
            let text = std::fs::read_to_string("policies/example.policy")?;
            let compiled = toolgate::load::engine_from_str("policies/example.policy", &text)?;
            let path = std::env::temp_dir().join("toolgate-example.bundle");
            std::fs::write(&path, compiled.to_bundle())?;
            std::fs::read(path)?
        }
    };
    Ok(Engine::from_bundle(&bytes)?)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let engine = Arc::new(load_bundle()?);
    println!("policy {}", engine.policy_hash());

    // The host grants its tools a set at the composition root (Hermes): reading only.
    let granted = PermissionSet::new(["fs:read"])?;
    let tools = with_permissions_all(
        [
            HostTool {
                name: "read_file",
                needs: needs(&["fs:read"]),
                run: |i| json!({ "contents": format!("<{}>", i["path"]) }),
            },
            HostTool {
                name: "fs.write",
                needs: needs(&["fs:write"]),
                run: |i| json!({ "written": i["path"] }),
            },
            HostTool {
                name: "Bash",
                needs: needs(&["proc:exec"]),
                run: |i| json!({ "ran": i["command"] }),
            },
        ],
        &granted,
    );

    // The model's calls, asked of the policy for agent `shell-helper` (LANGUAGE.md's example).
    let permission = engine.permission_callback("shell-helper");
    let calls = [
        ("toolu_01", "read_file", json!({ "path": "/tmp/notes.txt" })),
        ("toolu_02", "Bash", json!({ "command": "ls" })),
        (
            "toolu_03",
            "fs.write",
            json!({ "path": "/tmp/out.txt", "content": "hi" }),
        ),
    ];
    for (id, name, input) in calls {
        let call = ToolCall {
            tool_name: name.into(),
            input: input.clone(),
            tool_use_id: Some(id.into()),
            ..ToolCall::default()
        };
        let result = match permission(&call) {
            PermissionResult::Deny { message } => {
                json!({ "type": "tool_result", "tool_use_id": id, "is_error": true, "content": message })
            }
            PermissionResult::Allow => match tools.iter().find(|t| t.name() == name) {
                Some(tool) => match tool.execute(&input) {
                    Ok(out) => {
                        json!({ "type": "tool_result", "tool_use_id": id, "is_error": false, "content": out })
                    }
                    Err(e) => {
                        json!({ "type": "tool_result", "tool_use_id": id, "is_error": true, "content": e.to_string() })
                    }
                },
                None => {
                    json!({ "type": "tool_result", "tool_use_id": id, "is_error": true, "content": format!("no tool `{name}`") })
                }
            },
        };
        println!("{result}");
    }
    Ok(())
}
