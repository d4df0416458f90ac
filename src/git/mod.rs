//! git stage (in progress).
