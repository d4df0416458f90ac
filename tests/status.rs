//! `rspec-scout status`.
