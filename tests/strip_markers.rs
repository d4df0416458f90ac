//! `rspec-scout strip-markers`.
