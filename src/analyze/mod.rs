//! The code-analyzer stage: per-method characteristics, side effects, dependencies and the
//! behavior bank, decided from the syntax facts.

/// The side-effect types of the contract.
pub const SIDE_EFFECT_TYPES: &[&str] = &["email", "webhook", "cache", "event", "external_api"];
