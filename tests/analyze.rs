//! `rspec-scout analyze`.
