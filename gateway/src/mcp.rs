//! The MCP server the agents talk to: `tools/list` filtered per agent, `tools/call` decided
//! before it is forwarded, other methods refused or relayed per `other_methods`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, Implementation, ListPromptsResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ResultType,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::config::OtherMethods;
use crate::keys::Caller;
use crate::log::DecisionLine;
use crate::naming::View;
use crate::state::Shared;
use crate::upstream::{CallFailure, Upstream};

/// Caps how many calls each agent has in flight.
#[derive(Default)]
pub struct AgentLimiter {
    per_agent: Mutex<HashMap<String, Arc<Semaphore>>>,
}

impl AgentLimiter {
    /// A permit for one more call by `agent`, or `None` when it is at `limit`.
    pub fn try_acquire(&self, agent: &str, limit: usize) -> Option<OwnedSemaphorePermit> {
        let sem = {
            let mut map = self.per_agent.lock().ok()?;
            map.entry(agent.to_string())
                .or_insert_with(|| Arc::new(Semaphore::new(limit)))
                .clone()
        };
        sem.try_acquire_owned().ok()
    }
}

/// What a cached view was built from. Holding the `Arc`s (not just their addresses) keeps the
/// addresses unique while the entry lives, so a new engine can never pass for the old one.
struct Stamp {
    engine: Arc<toolgate::Engine>,
    lists: Vec<Arc<Vec<rmcp::model::Tool>>>,
}

impl Stamp {
    fn same(&self, other: &Stamp) -> bool {
        Arc::ptr_eq(&self.engine, &other.engine)
            && self.lists.len() == other.lists.len()
            && self
                .lists
                .iter()
                .zip(&other.lists)
                .all(|(a, b)| Arc::ptr_eq(a, b))
    }
}

/// Views cached per agent, rebuilt when the engine or an upstream's tool list changes.
#[derive(Default)]
struct ViewCache {
    entries: Mutex<HashMap<String, (Stamp, Arc<View>)>>,
}

/// The gateway's MCP handler; one is cloned per session.
#[derive(Clone)]
pub struct Gateway {
    shared: Arc<Shared>,
    upstreams: Arc<Vec<Arc<Upstream>>>,
    limiter: Arc<AgentLimiter>,
    views: Arc<ViewCache>,
}

/// The caller the auth middleware stored, or `None` (the call is then refused: fail closed).
fn caller(ctx: &RequestContext<RoleServer>) -> Option<Caller> {
    ctx.extensions
        .get::<http::request::Parts>()?
        .extensions
        .get::<Caller>()
        .cloned()
}

fn no_caller() -> McpError {
    McpError::internal_error("the request carries no authenticated caller", None)
}

fn text_error(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

impl Gateway {
    /// A handler over the shared state and the supervised upstreams.
    pub fn new(shared: Arc<Shared>, upstreams: Arc<Vec<Arc<Upstream>>>) -> Gateway {
        Gateway {
            shared,
            upstreams,
            limiter: Arc::new(AgentLimiter::default()),
            views: Arc::new(ViewCache::default()),
        }
    }

    /// The agent's view under the given engine; `None` for an agent the policy lacks.
    fn view(&self, engine: &Arc<toolgate::Engine>, agent: &str) -> Option<Arc<View>> {
        let lists: Vec<(String, Arc<Vec<rmcp::model::Tool>>)> = self
            .upstreams
            .iter()
            .map(|u| (u.name.clone(), u.last_tools()))
            .collect();
        let stamp = Stamp {
            engine: engine.clone(),
            lists: lists.iter().map(|(_, t)| t.clone()).collect(),
        };
        if let Ok(cache) = self.views.entries.lock() {
            if let Some((s, v)) = cache.get(agent) {
                if s.same(&stamp) {
                    return Some(v.clone());
                }
            }
        }
        let view = Arc::new(View::build(engine, agent, &lists)?);
        if let Ok(mut cache) = self.views.entries.lock() {
            cache.insert(agent.to_string(), (stamp, view.clone()));
        }
        Some(view)
    }

    fn upstream(&self, name: &str) -> Option<&Arc<Upstream>> {
        self.upstreams.iter().find(|u| u.name == name)
    }

    fn passes_other_methods(&self) -> bool {
        self.shared.config.other_methods == OtherMethods::Pass
    }

    /// Decides and, when allowed, forwards one call; writes its decision line.
    pub async fn handle_call(
        &self,
        caller: &Caller,
        request: CallToolRequestParams,
    ) -> Result<CallToolResult, McpError> {
        let time = crate::time::now_rfc3339();
        let engine = self.shared.engine();
        let unknown =
            || McpError::invalid_params(format!("unknown tool: `{}`", request.name), None);
        let view = self.view(&engine, &caller.agent).ok_or_else(unknown)?;
        let route = view.route(&request.name).ok_or_else(unknown)?.clone();
        let args = request.arguments.clone().unwrap_or_default();
        let t0 = Instant::now();
        let decision = engine.decide(
            &toolgate::Request::new(caller.agent.as_str(), route.tool.as_str())
                .server(route.server.as_str())
                .args(serde_json::Value::Object(args.clone())),
        );
        let decision_us = t0.elapsed().as_secs_f64() * 1e6;
        let mut upstream_us = None;
        let mut gateway_error: Option<&'static str> = None;
        let result = if !decision.is_allowed() {
            text_error(decision.message.to_string())
        } else if let Some(up) = self.upstream(&route.server) {
            let limit = self.shared.config.limits.max_concurrent_calls_per_agent;
            match self.limiter.try_acquire(&caller.agent, limit) {
                None => {
                    gateway_error = Some("concurrency_limit");
                    text_error(format!(
                        "too many calls in flight for this agent (the limit is {limit}); retry when one has finished"
                    ))
                }
                Some(_permit) => {
                    let mut forwarded = request.clone();
                    forwarded.name = route.tool.clone().into();
                    let t1 = Instant::now();
                    let out = up
                        .call(forwarded, self.shared.config.limits.call_timeout)
                        .await;
                    upstream_us = Some(t1.elapsed().as_secs_f64() * 1e6);
                    match out {
                        Ok(mut r) => {
                            r.result_type = Some(ResultType::COMPLETE);
                            r
                        }
                        Err(f) => {
                            gateway_error = Some(f.label());
                            text_error(f.message(&route.server))
                        }
                    }
                }
            }
        } else {
            gateway_error = Some(CallFailure::Unavailable.label());
            text_error(CallFailure::Unavailable.message(&route.server))
        };
        let rule = decision.rule.as_ref().map(|r| r.to_string());
        let log = &self.shared.decisions;
        log.write(&DecisionLine {
            time: &time,
            agent: &caller.agent,
            key_id: &caller.key_id,
            server: &route.server,
            tool: &route.tool,
            decision: if decision.is_allowed() {
                "allow"
            } else {
                "deny"
            },
            reason: decision.reason.as_str(),
            rule,
            policy_hash: &decision.policy_hash,
            decision_us,
            upstream_us,
            is_error: result.is_error == Some(true),
            gateway_error,
            args: log.loggable_args(&args),
        });
        Ok(result)
    }

    /// The agent's tools.
    pub fn handle_list(&self, caller: &Caller) -> ListToolsResult {
        let engine = self.shared.engine();
        let tools = self
            .view(&engine, &caller.agent)
            .map(|v| v.tools.clone())
            .unwrap_or_default();
        let mut r = ListToolsResult::with_all_items(tools);
        r.cache_scope = Some(rmcp::model::CacheScope::Private);
        r
    }
}

impl ServerHandler for Gateway {
    fn get_info(&self) -> ServerConfig {
        let caps = if self.passes_other_methods() {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build()
        } else {
            ServerCapabilities::builder().enable_tools().build()
        };
        ServerConfig::new(caps).with_server_info(Implementation::new(
            "toolgate-gateway",
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let caller = caller(&ctx).ok_or_else(no_caller)?;
        Ok(self.handle_list(&caller))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let caller = caller(&ctx).ok_or_else(no_caller)?;
        self.handle_call(&caller, request).await.map(Into::into)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        caller(&ctx).ok_or_else(no_caller)?;
        if !self.passes_other_methods() {
            return Err(McpError::method_not_found::<
                rmcp::model::ListResourcesRequestMethod,
            >());
        }
        let mut all = Vec::new();
        for up in self.upstreams.iter() {
            if let Some(c) = up.connection() {
                if let Ok(items) = c.peer.list_all_resources().await {
                    all.extend(items);
                }
            }
        }
        Ok(ListResourcesResult::with_all_items(all))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        caller(&ctx).ok_or_else(no_caller)?;
        if !self.passes_other_methods() {
            return Err(McpError::method_not_found::<
                rmcp::model::ReadResourceRequestMethod,
            >());
        }
        for up in self.upstreams.iter() {
            if let Some(c) = up.connection() {
                if let Ok(r) = c.peer.read_resource(request.clone()).await {
                    return Ok(ReadResourceResponse::Complete(r));
                }
            }
        }
        Err(McpError::resource_not_found(
            format!("no upstream has resource `{}`", request.uri),
            None,
        ))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        caller(&ctx).ok_or_else(no_caller)?;
        if !self.passes_other_methods() {
            return Err(McpError::method_not_found::<
                rmcp::model::ListPromptsRequestMethod,
            >());
        }
        let mut all = Vec::new();
        for up in self.upstreams.iter() {
            if let Some(c) = up.connection() {
                if let Ok(items) = c.peer.list_all_prompts().await {
                    all.extend(items);
                }
            }
        }
        Ok(ListPromptsResult::with_all_items(all))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        caller(&ctx).ok_or_else(no_caller)?;
        if !self.passes_other_methods() {
            return Err(McpError::method_not_found::<
                rmcp::model::GetPromptRequestMethod,
            >());
        }
        for up in self.upstreams.iter() {
            if let Some(c) = up.connection() {
                if let Ok(r) = c.peer.get_prompt(request.clone()).await {
                    return Ok(GetPromptResponse::Complete(r));
                }
            }
        }
        Err(McpError::invalid_params(
            format!("no upstream has prompt `{}`", request.name),
            None,
        ))
    }
}
