//! `Host` and `Origin` validation for the decision API routes (rmcp applies the same lists to
//! `/mcp` itself): a foreign `Origin` or an unexpected `Host` is answered 403.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{header, StatusCode};

/// The names accepted in `Host` on every listener.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The lists a request is checked against.
#[derive(Debug, Clone)]
pub struct HostRules {
    /// Accepted `Host` names or `host:port` authorities.
    pub hosts: Vec<String>,
    /// Accepted `Origin` values (`scheme://host[:port]`, or `scheme://host:*`).
    pub origins: Vec<String>,
}

fn host_name(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match authority.rsplit_once(':') {
        Some((h, p)) if p.chars().all(|c| c.is_ascii_digit()) => h,
        _ => authority,
    }
}

impl HostRules {
    /// True when the `Host` header value is accepted.
    pub fn host_ok(&self, host: &str) -> bool {
        let name = host_name(host);
        self.hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(host) || h.eq_ignore_ascii_case(name))
    }

    /// True when the `Origin` header value is accepted.
    pub fn origin_ok(&self, origin: &str) -> bool {
        self.origins.iter().any(|o| {
            if let Some(prefix) = o.strip_suffix(":*") {
                origin.eq_ignore_ascii_case(prefix)
                    || origin.rsplit_once(':').is_some_and(|(head, port)| {
                        head.eq_ignore_ascii_case(prefix)
                            && port.chars().all(|c| c.is_ascii_digit())
                    })
            } else {
                o.eq_ignore_ascii_case(origin)
            }
        })
    }
}

fn forbidden(what: &str) -> Response {
    (
        StatusCode::FORBIDDEN,
        [(header::CONTENT_TYPE, "application/json")],
        format!("{{\"error\":\"forbidden\",\"message\":\"{what} is not allowed\"}}"),
    )
        .into_response()
}

/// The middleware.
pub async fn check(State(rules): State<Arc<HostRules>>, req: Request, next: Next) -> Response {
    if let Some(origin) = req.headers().get(header::ORIGIN) {
        match origin.to_str() {
            Ok(o) if rules.origin_ok(o) => {}
            _ => return forbidden("this `Origin`"),
        }
    }
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| req.uri().authority().map(|a| a.as_str()));
    match host {
        Some(h) if rules.host_ok(h) => next.run(req).await,
        _ => forbidden("this `Host`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins_match_as_configured() {
        let rules = HostRules {
            hosts: vec![
                "localhost".into(),
                "::1".into(),
                "gw.example.com:443".into(),
            ],
            origins: vec![
                "https://app.example.com".into(),
                "http://localhost:*".into(),
            ],
        };
        assert!(rules.host_ok("localhost:8787") && rules.host_ok("[::1]:8787"));
        assert!(rules.host_ok("gw.example.com:443"));
        assert!(!rules.host_ok("evil.example.com") && !rules.host_ok("localhost.evil.com"));
        assert!(rules.origin_ok("https://app.example.com"));
        assert!(rules.origin_ok("http://localhost:3000"));
        assert!(!rules.origin_ok("http://localhost.evil:3000"));
        assert!(!rules.origin_ok("https://evil.example.com"));
    }
}
