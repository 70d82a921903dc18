//! Reviewing policies: what each agent may effectively do ([`matrix`]) and how two policies'
//! decisions differ ([`diff`]). Both read the resolved policy and check what they claim by
//! deciding requests with the compiled [`crate::Engine`]; a compiled bundle is first turned
//! back into policy source ([`decompile`]).

pub mod decompile;
pub mod diff;
pub mod matrix;
