//! Bearer-key authentication in front of every authenticated route: the key alone names the
//! agent; anything else is HTTP 401 with `WWW-Authenticate: Bearer` and a body that says nothing
//! about which agents or keys exist. Each refusal is logged as an `unauthorized` event (why,
//! the key id when the key is well formed, the peer address; rate-limited, never the key). Key checks that need argon2 are bounded by
//! [`crate::keycheck`]; over those bounds the answer is HTTP 429 with `Retry-After`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{header, HeaderValue, StatusCode};
use serde_json::json;

use crate::keycheck::TooMany;
use crate::keys::key_id;
use crate::state::Shared;

/// The body of every 401 answer.
pub const UNAUTHORIZED_BODY: &str =
    "{\"error\":\"unauthorized\",\"message\":\"a valid `Authorization: Bearer` key is required\"}";

/// The 401 answer.
pub fn unauthorized() -> Response {
    let mut r = (StatusCode::UNAUTHORIZED, UNAUTHORIZED_BODY).into_response();
    r.headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// The body of every 429 answer to a key check over its limits.
pub const TOO_MANY_BODY: &str =
    "{\"error\":\"too_many_requests\",\"message\":\"too many key checks; retry after the `Retry-After` seconds\"}";

/// The 429 answer: `Retry-After` in whole seconds, at least one.
pub fn too_many(retry_after: Duration) -> Response {
    let secs = retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0);
    let mut r = (StatusCode::TOO_MANY_REQUESTS, TOO_MANY_BODY).into_response();
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(secs.max(1)));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// The presented bearer token, if the header is well formed.
pub fn bearer(req: &Request<Body>) -> Option<&str> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// The 401 answer, logged as a rate-limited `unauthorized` event: why, the public key id when
/// the key is well formed, the peer address and the path (never the key).
fn refused(
    why: &str,
    key_id: Option<&str>,
    peer: Option<std::net::IpAddr>,
    req: &Request,
) -> Response {
    crate::log::limited_event(
        "unauthorized",
        json!({"why": why, "key_id": key_id, "peer": peer.map(|p| p.to_string()), "path": req.uri().path()}),
    );
    unauthorized()
}

/// The middleware: resolves the caller and stores it in the request's extensions.
///
/// A key verified before is found in the cache without waiting for anything. Any other
/// well-formed key needs an argon2 check, admitted by the key-check limits (per id, per peer
/// address, overall) and run on a key-check thread; a malformed key is refused at once.
pub async fn require_key(
    State(shared): State<Arc<Shared>>,
    mut req: Request,
    next: Next,
) -> Response {
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let Some(presented) = bearer(&req).map(str::to_owned) else {
        return refused("no bearer key", None, peer, &req);
    };
    // The public id of a key that needs a check, for the log if it is refused.
    let mut checked_id = None;
    let caller = match shared.cached_caller(&presented) {
        Some(c) => Some(c),
        None => {
            let Some(id) = key_id(&presented) else {
                return refused("malformed key", None, peer, &req);
            };
            checked_id = Some(id.to_string());
            let mut ticket = match shared.key_checks.begin(id, peer).await {
                Ok(t) => t,
                Err(TooMany(retry)) => return too_many(retry),
            };
            // A request with the same key may have verified it while this one waited.
            match shared.cached_caller(&presented) {
                Some(c) => {
                    ticket.verified();
                    Some(c)
                }
                None => {
                    let s = shared.clone();
                    shared
                        .key_checks
                        .run(ticket, move |memory| s.verify_key_with(&presented, memory))
                        .await
                }
            }
        }
    };
    match caller {
        Some(caller) => {
            req.extensions_mut().insert(caller);
            next.run(req).await
        }
        None => refused(
            "unknown, revoked or wrong key",
            checked_id.as_deref(),
            peer,
            &req,
        ),
    }
}
