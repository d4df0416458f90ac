//! rspec-scout: tells an RSpec test-writing pipeline what to test in a Ruby/Rails codebase,
//! in which order, and which cases each method has.
//!
//! Data flows one way: [`index`] (files → facts), [`rails`] (routes, schema, callbacks,
//! factories) → [`git`] (changes, base versions) →
//! [`discover`] (modes, zones, graph, waves) → [`analyze`] (characteristics, behaviors) →
//! [`spec`] (test config, skeletons, patching). [`metadata`] owns the YAML files every stage
//! reads and writes; [`report`] renders answers; [`app`] is one function per command.
#![cfg_attr(
    test,
    allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

pub mod analyze;
pub mod app;
pub mod config;
pub mod discover;
pub mod error;
pub mod git;
pub mod guard;
pub mod index;
pub mod mcp;
pub mod memory;
pub mod metadata;
pub mod naming;
pub mod project;
pub mod rails;
pub mod report;
pub mod ruby;
pub mod spec;
pub mod vocab;
pub mod yaml;

pub use error::{Error, Result};
