//! The effective permissions of a policy: for every agent and catalog tool, never, always, or
//! under which conditions.
