//! Bearer-key authentication in front of every authenticated route: the key alone names the
//! agent; anything else is HTTP 401 with `WWW-Authenticate: Bearer` and a body that says nothing
//! about which agents or keys exist.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{header, HeaderValue, StatusCode};

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

/// The presented bearer token, if the header is well formed.
pub fn bearer(req: &Request<Body>) -> Option<&str> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// The middleware: resolves the caller and stores it in the request's extensions.
pub async fn require_key(
    State(shared): State<Arc<Shared>>,
    mut req: Request,
    next: Next,
) -> Response {
    let Some(presented) = bearer(&req).map(str::to_owned) else {
        return unauthorized();
    };
    let caller = match shared.cached_caller(&presented) {
        Some(c) => Some(c),
        None => {
            let s = shared.clone();
            tokio::task::spawn_blocking(move || s.verify_key(&presented))
                .await
                .ok()
                .flatten()
        }
    };
    match caller {
        Some(caller) => {
            req.extensions_mut().insert(caller);
            next.run(req).await
        }
        None => unauthorized(),
    }
}
