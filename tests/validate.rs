//! `rspec-scout validate`.
