//! An agent's view of the upstream tools, and the naming rule.
//!
//! The view holds the upstream tools that [`toolgate::Engine::visible_tools`] lists for the
//! agent (the same listing as `toolgate tools`): an upstream tool the catalog lacks, or one the
//! agent can never call, is not in it. A tool keeps its upstream name when no other tool in the
//! agent's view has that name; otherwise every tool of that name is shown as `server.tool`.
//! A call may also always use the qualified `server.tool` form of a tool in the view.
//!
//! Names in a view are unique. Two tools collide when one name would reach both: a tool whose
//! own name is another's qualified name (server `aaa`'s tool `"git.echo"` and server `git`'s
//! `echo`), or two qualified names that read alike (server `"a.b"`'s `c` and server `a`'s
//! `"b.c"`). Neither tool of a colliding pair is in the view, under any name ([`collisions`]);
//! the daemon reports each collision as a `tool_name_collision` event and `check --against`
//! as an error. A tool an upstream lists twice counts once.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rmcp::model::Tool;
use toolgate::Engine;

/// Where a name in an agent's view routes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Route {
    /// The upstream (catalog server) name.
    pub server: String,
    /// The tool's name on that upstream.
    pub tool: String,
}

/// Two tools of different upstreams that one name would reach.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Collision {
    /// The name both would be called by.
    pub name: String,
    /// One of the tools.
    pub first: Route,
    /// The other.
    pub second: Route,
}

impl Collision {
    /// The operator's message, naming both upstreams.
    pub fn message(&self) -> String {
        format!(
            "the name `{}` would reach tool `{}` of upstream `{}` and tool `{}` of upstream `{}`; neither is listed or callable until one is renamed or dropped from the catalog",
            self.name, self.first.tool, self.first.server, self.second.tool, self.second.server
        )
    }
}

/// The collisions among `(server, tool)` pairs, in input order (a pair given twice counts
/// once). Tools that merely share a plain name are no collision: the naming rule qualifies
/// both. A collision is a name that is one tool's qualified `server.tool` and another's plain
/// or qualified name.
pub fn collisions<'a>(routes: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<Collision> {
    let mut seen = HashSet::new();
    let routes: Vec<(&str, &str)> = routes.into_iter().filter(|r| seen.insert(*r)).collect();
    let mut qualified: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::new();
    let route = |i: usize| Route {
        server: routes[i].0.to_string(),
        tool: routes[i].1.to_string(),
    };
    for (i, (server, tool)) in routes.iter().enumerate() {
        let name = format!("{server}.{tool}");
        match qualified.get(&name) {
            Some(&j) => out.push(Collision {
                name,
                first: route(j),
                second: route(i),
            }),
            None => {
                qualified.insert(name, i);
            }
        }
    }
    for (i, (_, tool)) in routes.iter().enumerate() {
        if let Some(&j) = qualified.get(*tool) {
            if j != i {
                out.push(Collision {
                    name: tool.to_string(),
                    first: route(j),
                    second: route(i),
                });
            }
        }
    }
    out
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
        let mut listed: HashSet<(&str, &str)> = HashSet::new();
        for (server, tools) in upstreams {
            for t in tools.iter() {
                if visible.contains(&(server.clone(), t.name.to_string()))
                    && listed.insert((server, t.name.as_ref()))
                {
                    candidates.push((server, t));
                }
            }
        }
        let colliding: HashSet<Route> = collisions(
            candidates
                .iter()
                .map(|(server, t)| (*server, t.name.as_ref())),
        )
        .into_iter()
        .flat_map(|c| [c.first, c.second])
        .collect();
        candidates.retain(|(server, t)| {
            !colliding.contains(&Route {
                server: server.to_string(),
                tool: t.name.to_string(),
            })
        });
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

    #[test]
    fn tools_one_name_would_reach_are_both_withheld() {
        let engine = toolgate::load::engine_from_str(
            "p.policy",
            "server aaa { tool \"git.echo\"(text)\n tool ok }\nserver git { tool echo(text)\n tool log }\n\
             server \"a.b\" { tool c }\nserver a { tool \"b.c\" }\n\
             agent x { allow aaa.*\n allow git.*\n allow \"a.b\".c\n allow a.\"b.c\" }\n\
             agent y { allow git.* }",
        )
        .unwrap();
        let ups = vec![
            (
                "aaa".to_string(),
                Arc::new(vec![tool("git.echo"), tool("ok"), tool("ok")]),
            ),
            ("git".to_string(), Arc::new(vec![tool("echo"), tool("log")])),
            ("a.b".to_string(), Arc::new(vec![tool("c")])),
            ("a".to_string(), Arc::new(vec![tool("b.c")])),
        ];
        let x = View::build(&engine, "x", &ups).unwrap();
        let names: Vec<&str> = x.tools.iter().map(|t| t.name.as_ref()).collect();
        // A tool listed twice counts once; every colliding tool is gone, under every name.
        assert_eq!(names, ["ok", "log"]);
        for name in ["git.echo", "echo", "aaa.git.echo", "a.b.c", "c", "b.c"] {
            assert!(x.route(name).is_none(), "{name}");
        }
        // An agent that sees only one of the two has no collision.
        let y = View::build(&engine, "y", &ups).unwrap();
        assert_eq!(y.route("git.echo").unwrap().server, "git");
        let found = collisions([("aaa", "git.echo"), ("git", "echo"), ("git", "echo")]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, "git.echo");
        let text = found[0].message();
        assert!(text.contains("`aaa`") && text.contains("`git`"), "{text}");
    }
}
