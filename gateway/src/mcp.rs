//! The MCP server the agents talk to: `tools/list` filtered per agent, `tools/call` decided
//! before it is forwarded, other methods refused or relayed per `other_methods`.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, Implementation, ListPromptsResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ResultType,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{Peer, RequestContext, ServiceError};
use rmcp::{ErrorData as McpError, RoleClient, RoleServer, ServerHandler};
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

/// Which running upstreams a relayed method asks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ask {
    /// Each of them (a list method: the answers are joined).
    Every,
    /// Each in turn until one answers (a read: the first answer is the result).
    FirstThatAnswers,
}
use Ask::{Every, FirstThatAnswers};

impl Gateway {
    /// Relays a method that `other_methods` governs: refused (with `refused()`) unless it is
    /// `"pass"`, and only for an authenticated caller; otherwise the running upstreams are
    /// asked per `which`, in configuration order, and the answers of those that answered are
    /// returned (an upstream that fails or lacks the method is skipped).
    async fn relay<T, Fut>(
        &self,
        ctx: &RequestContext<RoleServer>,
        refused: fn() -> McpError,
        which: Ask,
        ask: impl Fn(Peer<RoleClient>) -> Fut,
    ) -> Result<Vec<T>, McpError>
    where
        Fut: Future<Output = Result<T, ServiceError>>,
    {
        caller(ctx).ok_or_else(no_caller)?;
        if !self.passes_other_methods() {
            return Err(refused());
        }
        let mut answers = Vec::new();
        for up in self.upstreams.iter() {
            let Some(c) = up.connection() else { continue };
            if let Ok(answer) = ask(c.peer.clone()).await {
                answers.push(answer);
                if which == FirstThatAnswers {
                    break;
                }
            }
        }
        Ok(answers)
    }

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
        let stamp = Stamp {
            engine: engine.clone(),
            lists: self.upstreams.iter().map(|u| u.last_tools()).collect(),
        };
        if let Ok(cache) = self.views.entries.lock() {
            if let Some((s, v)) = cache.get(agent) {
                if s.same(&stamp) {
                    return Some(v.clone());
                }
            }
        }
        let lists: Vec<(String, Arc<Vec<rmcp::model::Tool>>)> = self
            .upstreams
            .iter()
            .zip(&stamp.lists)
            .map(|(u, t)| (u.name.clone(), t.clone()))
            .collect();
        let view = Arc::new(View::build(engine, agent, &lists)?);
        if let Ok(mut cache) = self.views.entries.lock() {
            cache.insert(agent.to_string(), (stamp, view.clone()));
        }
        Some(view)
    }

    /// Where a name routes when it is not in the agent's view because its upstream has never
    /// started (so never listed its tools): a tool of such an upstream that the agent may see,
    /// called `server.tool`, or by its plain name when no other tool the agent may see has it.
    /// The call is then decided as usual and, when allowed, answered "unavailable".
    fn unstarted_route(
        &self,
        engine: &toolgate::Engine,
        agent: &str,
        name: &str,
    ) -> Option<crate::naming::Route> {
        let unstarted = |server: &str| {
            self.upstream(server)
                .is_some_and(|u| u.connection().is_none() && u.last_tools().is_empty())
        };
        if !self.upstreams.iter().any(|u| unstarted(&u.name)) {
            return None;
        }
        let visible = engine.visible_tools(agent)?;
        let mut found = None;
        let mut plain = 0;
        for v in &visible {
            let Some(server) = v.server.as_deref() else {
                continue;
            };
            if v.tool == name {
                plain += 1;
            }
            let qualified = name
                .strip_prefix(server)
                .and_then(|rest| rest.strip_prefix('.'))
                == Some(v.tool.as_str());
            if (qualified || v.tool == name) && unstarted(server) {
                if qualified {
                    return Some(crate::naming::Route {
                        server: server.to_string(),
                        tool: v.tool.clone(),
                    });
                }
                found = Some(crate::naming::Route {
                    server: server.to_string(),
                    tool: v.tool.clone(),
                });
            }
        }
        found.filter(|_| plain == 1)
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
        mut request: CallToolRequestParams,
    ) -> Result<CallToolResult, McpError> {
        let time = crate::time::now_rfc3339();
        let engine = self.shared.engine();
        let unknown = || {
            let shown = crate::log::shown_name(&request.name);
            crate::log::limited_event(
                "unknown_tool",
                serde_json::json!({"agent": caller.agent, "key_id": caller.key_id, "tool": shown}),
            );
            McpError::invalid_params(format!("unknown tool: `{shown}`"), None)
        };
        let view = self.view(&engine, &caller.agent).ok_or_else(unknown)?;
        let route = match view.route(&request.name) {
            Some(r) => r.clone(),
            None => self
                .unstarted_route(&engine, &caller.agent, &request.name)
                .ok_or_else(unknown)?,
        };
        // The arguments move into the engine's request and back out (no copy per call).
        let had_args = request.arguments.is_some();
        let mut decide = toolgate::Request::new(caller.agent.as_str(), route.tool.as_str())
            .server(route.server.as_str());
        decide.args = request.arguments.take().unwrap_or_default();
        let t0 = Instant::now();
        let decision = engine.decide(&decide);
        let decision_us = t0.elapsed().as_secs_f64() * 1e6;
        let args = std::mem::take(&mut decide.args);
        let log = &self.shared.decisions;
        let logged_args = log.loggable_args(&args);
        let mut upstream_us = None;
        let mut gateway_error: Option<&'static str> = None;
        let rule = decision.rule.as_ref().map(|r| r.to_string());
        let line = |upstream_us, is_error, gateway_error, args| DecisionLine {
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
            rule: rule.clone(),
            policy_hash: &decision.policy_hash,
            decision_us,
            upstream_us,
            is_error,
            gateway_error,
            args,
        };
        // With `on_failure = "deny"` an allowed call's line is written before the call is
        // forwarded, and the call is refused if it cannot be.
        let logged_first = log.deny_on_failure && decision.is_allowed();
        if logged_first && !log.write(&line(None, false, None, logged_args.clone())) {
            return Ok(text_error(
                "the call was refused: the gateway cannot write its decision log".to_string(),
            ));
        }
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
                    request.name = route.tool.clone().into();
                    request.arguments = had_args.then_some(args);
                    let t1 = Instant::now();
                    let out = up
                        .call(request, self.shared.config.limits.call_timeout)
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
        if !logged_first {
            log.write(&line(
                upstream_us,
                result.is_error == Some(true),
                gateway_error,
                logged_args,
            ));
        }
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
        let lists = self
            .relay(
                &ctx,
                McpError::method_not_found::<rmcp::model::ListResourcesRequestMethod>,
                Every,
                |peer| async move { peer.list_all_resources().await },
            )
            .await?;
        Ok(ListResourcesResult::with_all_items(lists.concat()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri.clone();
        self.relay(
            &ctx,
            McpError::method_not_found::<rmcp::model::ReadResourceRequestMethod>,
            FirstThatAnswers,
            |peer| {
                let request = request.clone();
                async move { peer.read_resource(request).await }
            },
        )
        .await?
        .pop()
        .map(|mut r| {
            // As for tool results: a 2025-era upstream's answer carries no `resultType`.
            r.result_type = Some(ResultType::COMPLETE);
            ReadResourceResponse::Complete(r)
        })
        .ok_or_else(|| {
            McpError::resource_not_found(format!("no upstream has resource `{uri}`"), None)
        })
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let lists = self
            .relay(
                &ctx,
                McpError::method_not_found::<rmcp::model::ListPromptsRequestMethod>,
                Every,
                |peer| async move { peer.list_all_prompts().await },
            )
            .await?;
        Ok(ListPromptsResult::with_all_items(lists.concat()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let name = request.name.clone();
        self.relay(
            &ctx,
            McpError::method_not_found::<rmcp::model::GetPromptRequestMethod>,
            FirstThatAnswers,
            |peer| {
                let request = request.clone();
                async move { peer.get_prompt(request).await }
            },
        )
        .await?
        .pop()
        .map(|mut r| {
            r.result_type = Some(ResultType::COMPLETE);
            GetPromptResponse::Complete(r)
        })
        .ok_or_else(|| McpError::invalid_params(format!("no upstream has prompt `{name}`"), None))
    }
}
