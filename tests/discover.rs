//! `rspec-scout discover`.
