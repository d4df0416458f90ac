//! discover stage (in progress).
