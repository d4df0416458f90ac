//! `rspec-scout skeleton`.
