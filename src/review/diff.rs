//! The semantic difference between two policies: the agents and tools whose decisions differ,
//! each with a witness request decided differently by the two engines.
