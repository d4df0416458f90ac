//! `rspec-scout test-config`.
