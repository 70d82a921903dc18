//! toolgate-gateway: an MCP gateway and a decision API in front of toolgate policies.
//!
//! The daemon authenticates each caller by a bearer key (the key names the agent), shows each
//! agent only the upstream tools its policy lets it see, and decides every `tools/call` with the
//! same [`toolgate::Engine`] the CLI uses before forwarding it. It lives in its own crate so that
//! hosts embedding the `toolgate` library never compile tokio, axum or rmcp.

pub mod auth;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod daemon;
pub mod drift;
pub mod framing;
pub mod keycheck;
pub mod keys;
pub mod log;
pub mod mcp;
pub mod naming;
pub mod origin;
pub mod serve;
pub mod sessions;
pub mod state;
pub mod time;
pub mod upstream;
