//! spec stage (in progress).
