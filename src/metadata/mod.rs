//! metadata stage (in progress).
