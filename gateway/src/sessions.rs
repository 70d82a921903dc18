//! Caps on the sessions of 2025-11-25 clients: each `initialize` without `Mcp-Session-Id`
//! makes rmcp keep a session worker (tens of KiB) until it has been idle for the configured
//! timeout. The gateway records which key made each session and when each was last used; when
//! a key holds more than `max_sessions_per_key`, or the gateway more than `max_sessions`, the
//! session idle the longest (of that key, or overall) is closed. 2026-07-28 clients are
//! sessionless and not counted.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::Method;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::SessionManager;
use serde_json::json;

use crate::config::Limits;
use crate::keys::Caller;
use crate::log::event;

/// The header that names a session.
const SESSION_HEADER: &str = "mcp-session-id";

#[derive(Debug, Clone)]
struct Entry {
    key_id: String,
    last_used: Instant,
}

/// The sessions the gateway knows of, by session id.
#[derive(Debug, Default)]
struct Table {
    by_id: HashMap<String, Entry>,
}

impl Table {
    /// Drops entries idle past `idle` (rmcp has closed those sessions itself).
    fn prune(&mut self, now: Instant, idle: Duration) {
        self.by_id
            .retain(|_, e| now.saturating_duration_since(e.last_used) < idle);
    }

    /// The session idle the longest, among those of `key_id` if given.
    fn idlest(&self, key_id: Option<&str>) -> Option<String> {
        self.by_id
            .iter()
            .filter(|(_, e)| key_id.is_none_or(|k| e.key_id == k))
            .min_by_key(|(_, e)| e.last_used)
            .map(|(id, _)| id.clone())
    }

    /// Records a new session and returns the sessions to close to stay within the caps, each
    /// with the key id that made it.
    fn add(
        &mut self,
        id: String,
        key_id: String,
        now: Instant,
        limits: &SessionLimits,
    ) -> Vec<(String, String)> {
        self.prune(now, limits.idle);
        self.by_id.insert(
            id,
            Entry {
                key_id: key_id.clone(),
                last_used: now,
            },
        );
        let mut evict = Vec::new();
        while self.by_id.values().filter(|e| e.key_id == key_id).count() > limits.per_key {
            match self.idlest(Some(&key_id)) {
                Some(old) => {
                    self.by_id.remove(&old);
                    evict.push((old, key_id.clone()));
                }
                None => break,
            }
        }
        while self.by_id.len() > limits.overall {
            match self.idlest(None) {
                Some(old) => {
                    if let Some(e) = self.by_id.remove(&old) {
                        evict.push((old, e.key_id));
                    }
                }
                None => break,
            }
        }
        evict
    }
}

/// The caps, from `[limits]`.
#[derive(Debug, Clone, Copy)]
struct SessionLimits {
    overall: usize,
    per_key: usize,
    idle: Duration,
}

/// The session registry and the rmcp session manager it closes sessions in.
pub struct Sessions {
    manager: Arc<LocalSessionManager>,
    table: Mutex<Table>,
    limits: SessionLimits,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Sessions {
    /// A registry and a session manager whose sessions close after the configured idle time.
    pub fn new(limits: &Limits) -> Sessions {
        let mut manager = LocalSessionManager::default();
        manager.session_config.keep_alive = Some(limits.session_idle_timeout);
        Sessions {
            manager: Arc::new(manager),
            table: Mutex::new(Table::default()),
            limits: SessionLimits {
                overall: limits.max_sessions,
                per_key: limits.max_sessions_per_key,
                idle: limits.session_idle_timeout,
            },
        }
    }

    /// The rmcp session manager to serve `/mcp` with.
    pub fn manager(&self) -> Arc<LocalSessionManager> {
        self.manager.clone()
    }

    fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sessions counted now (idle ones past the timeout are dropped first).
    pub fn count(&self) -> usize {
        let mut t = self.table();
        t.prune(Instant::now(), self.limits.idle);
        t.by_id.len()
    }

    /// Whether rmcp still holds the session with this id.
    pub async fn is_open(&self, id: &str) -> bool {
        self.manager.has_session(&id.into()).await.unwrap_or(false)
    }

    async fn close(&self, id: &str, key_id: &str) {
        let _ = self.manager.close_session(&id.into()).await;
        event(
            "session_evicted",
            json!({"key_id": key_id, "max_sessions": self.limits.overall, "max_sessions_per_key": self.limits.per_key}),
        );
    }
}

/// The middleware in front of `/mcp` (inside the key check): counts sessions as `initialize`
/// answers create them, marks them used on each request, forgets them on `DELETE`, and closes
/// the longest-idle ones over the caps.
pub async fn track(State(sessions): State<Arc<Sessions>>, req: Request, next: Next) -> Response {
    let key_id = req
        .extensions()
        .get::<Caller>()
        .map(|c| c.key_id.clone())
        .unwrap_or_default();
    let presented = req
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let delete = req.method() == Method::DELETE;
    if let Some(id) = &presented {
        if let Some(e) = sessions.table().by_id.get_mut(id) {
            e.last_used = Instant::now();
        }
    }
    let response = next.run(req).await;
    match presented {
        Some(id) => {
            if delete && response.status().is_success() {
                sessions.table().by_id.remove(&id);
            }
        }
        None => {
            let created = response
                .headers()
                .get(SESSION_HEADER)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            if let Some(id) = created {
                let evict =
                    sessions
                        .table()
                        .add(id, key_id.clone(), Instant::now(), &sessions.limits);
                for (old, owner) in evict {
                    sessions.close(&old, &owner).await;
                }
            }
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_idle_session_goes_first_per_key_and_overall() {
        let limits = SessionLimits {
            overall: 4,
            per_key: 2,
            idle: Duration::from_secs(300),
        };
        let mut t = Table::default();
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        assert!(t.add("a1".into(), "A".into(), at(0), &limits).is_empty());
        assert!(t.add("a2".into(), "A".into(), at(1), &limits).is_empty());
        // a1 was used after a2: a2 is now the idlest of key A.
        t.by_id.get_mut("a1").unwrap().last_used = at(2);
        let ids = |v: Vec<(String, String)>| v.into_iter().map(|(id, _)| id).collect::<Vec<_>>();
        assert_eq!(ids(t.add("a3".into(), "A".into(), at(3), &limits)), ["a2"]);
        assert!(t.add("b1".into(), "B".into(), at(4), &limits).is_empty());
        assert!(t.add("c1".into(), "C".into(), at(5), &limits).is_empty());
        // Five sessions over an overall cap of four: the idlest of all (a1, used at 2) goes.
        assert_eq!(
            t.add("d1".into(), "D".into(), at(6), &limits),
            [("a1".to_string(), "A".to_string())]
        );
        assert_eq!(t.by_id.len(), 4);
        // Sessions idle past the timeout are no longer counted.
        assert!(t.add("e1".into(), "E".into(), at(304), &limits).is_empty());
        let mut left: Vec<_> = t.by_id.keys().cloned().collect();
        left.sort();
        assert_eq!(left, ["c1", "d1", "e1"]);
    }
}
