//! Giving freed memory back between phases.
//!
//! The binary's allocator (mimalloc) keeps the pages a phase frees, to reuse them. Between
//! two phases of a large run that is a whole phase's garbage held beside the next phase's
//! data: parsing 50,000 files leaves the extraction's scratch space, and planning frees the
//! per-file lists it has copied into the plan. The binary registers how to hand those pages
//! back ([`set_release`]); the library calls [`release`] where a phase's garbage ends. A
//! library user that registers nothing loses nothing but the saving.

use std::sync::OnceLock;

static RELEASE: OnceLock<fn()> = OnceLock::new();

/// Registers the allocator's release (once; later calls are ignored).
pub fn set_release(release: fn()) {
    let _ = RELEASE.set(release);
}

/// Hands freed memory back to the system, if the binary said how.
pub fn release() {
    if let Some(release) = RELEASE.get() {
        release();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    static CALLS: AtomicUsize = AtomicUsize::new(0);

    fn counted() {
        CALLS.fetch_add(1, Ordering::SeqCst);
    }

    #[test]
    fn release_runs_what_the_binary_registered() {
        let before = CALLS.load(Ordering::SeqCst);
        super::set_release(counted);
        super::release();
        super::release();
        assert_eq!(CALLS.load(Ordering::SeqCst), before + 2);
    }
}
