//! `rspec-scout outline`.
