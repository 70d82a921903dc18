//! An agent's view of the upstream tools, and the naming rule.
//!
//! The view holds the upstream tools that [`toolgate::Engine::visible_tools`] lists for the
//! agent (the same listing as `toolgate tools`): an upstream tool the catalog lacks, or one the
//! agent can never call, is not in it. A tool keeps its upstream name when no other tool in the
//! agent's view has that name; otherwise every tool of that name is shown as `server.tool`.
//! A call may also always use the qualified `server.tool` form of a tool in the view.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rmcp::model::Tool;
use toolgate::Engine;

/// Where a name in an agent's view routes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The upstream (catalog server) name.
    pub server: String,
    /// The tool's name on that upstream.
    pub tool: String,
}

/// One agent's tools as the gateway shows them.
#[derive(Debug, Default)]
pub struct View {
    /// The tools, renamed by the naming rule, in upstream order.
    pub tools: Vec<Tool>,
    routes: HashMap<String, Route>,
}

impl View {
    /// Builds the view from each upstream's current tool list; `None` for an unknown agent.
    pub fn build(
        engine: &Engine,
        agent: &str,
        upstreams: &[(String, Arc<Vec<Tool>>)],
    ) -> Option<View> {
        let visible: HashSet<(String, String)> = engine
            .visible_tools(agent)?
            .into_iter()
            .filter_map(|v| Some((v.server?, v.tool)))
            .collect();
        let mut candidates: Vec<(&str, &Tool)> = Vec::new();
        for (server, tools) in upstreams {
            for t in tools.iter() {
                if visible.contains(&(server.clone(), t.name.to_string())) {
                    candidates.push((server, t));
                }
            }
        }
        let mut count: HashMap<&str, usize> = HashMap::new();
        for (_, t) in &candidates {
            *count.entry(t.name.as_ref()).or_default() += 1;
        }
        let mut view = View::default();
        for (server, t) in candidates {
            let route = Route {
                server: server.to_string(),
                tool: t.name.to_string(),
            };
            let qualified = format!("{server}.{}", t.name);
            let shown = if count.get(t.name.as_ref()).copied() == Some(1) {
                t.name.to_string()
            } else {
                qualified.clone()
            };
            let mut tool = t.clone();
            tool.name = shown.clone().into();
            view.tools.push(tool);
            view.routes.insert(qualified, route.clone());
            view.routes.insert(shown, route);
        }
        Some(view)
    }

    /// Where a called name routes, if it is in the view.
    pub fn route(&self, name: &str) -> Option<&Route> {
        self.routes.get(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str) -> Tool {
        Tool::new(name.to_string(), "d", Arc::new(serde_json::Map::new()))
    }

    #[test]
    fn unique_names_stay_shared_names_are_qualified_hidden_ones_are_absent() {
        let engine = toolgate::load::engine_from_str(
            "p.policy",
            "server git { tool status(p)\n tool log(p) }\nserver hg { tool status(p)\n tool secret }\n\
             agent a { allow git.status\n allow git.log\n allow hg.status }\nagent b { allow git.log }",
        )
        .unwrap();
        let ups = vec![
            (
                "git".to_string(),
                Arc::new(vec![tool("status"), tool("log"), tool("extra")]),
            ),
            (
                "hg".to_string(),
                Arc::new(vec![tool("status"), tool("secret")]),
            ),
        ];
        let a = View::build(&engine, "a", &ups).unwrap();
        let names: Vec<&str> = a.tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["git.status", "log", "hg.status"]);
        assert_eq!(a.route("log").unwrap().server, "git");
        assert_eq!(a.route("git.log").unwrap().tool, "log");
        assert_eq!(a.route("hg.status").unwrap().server, "hg");
        assert!(a.route("status").is_none());
        assert!(a.route("extra").is_none() && a.route("secret").is_none());
        let b = View::build(&engine, "b", &ups).unwrap();
        assert_eq!(b.tools.len(), 1);
        assert!(b.route("git.status").is_none());
        assert!(View::build(&engine, "nobody", &ups).is_none());
    }
}
