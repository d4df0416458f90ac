//! What identifies a version of a file on disk without reading it ([`Stamp`]), and git's
//! racy-clean rule ([`RACY`]): shared by the MCP server's warm index and the on-disk facts
//! cache ([`super::cache`]).

use std::path::Path;
use std::time::{Duration, SystemTime};

/// A file modified this close to the moment it was looked at may change again without its
/// stamp changing (two writes in the same clock tick look alike): its stamp is not trusted
/// and its content digest is compared instead, until it is older.
pub const RACY: Duration = Duration::from_secs(2);

/// What identifies a version of a file on disk without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Modification time, nanoseconds since the epoch (0 when unknown).
    pub(crate) mtime_ns: i128,
    /// Size in bytes.
    pub(crate) size: u64,
    /// Inode number (0 where there is none).
    pub(crate) inode: u64,
    /// Type and permission bits (0 where there are none): a `chmod +x` moves no time and
    /// no size, yet git sees the file changed.
    pub(crate) mode: u32,
}

impl Stamp {
    /// The stamp of `path` (`None`: not there).
    pub fn of(path: &Path) -> Option<Stamp> {
        std::fs::metadata(path).ok().map(|m| Stamp::from_meta(&m))
    }

    /// The stamp of a file whose metadata was read.
    pub fn from_meta(meta: &std::fs::Metadata) -> Stamp {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        #[cfg(unix)]
        let (inode, mode) = (
            std::os::unix::fs::MetadataExt::ino(meta),
            std::os::unix::fs::MetadataExt::mode(meta),
        );
        #[cfg(not(unix))]
        let (inode, mode) = (0, 0);
        Stamp {
            mtime_ns,
            size: meta.len(),
            inode,
            mode,
        }
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Whether the file was modified within [`RACY`] of `seen` (or after it).
    pub fn racy(&self, seen: SystemTime) -> bool {
        self.racy_ns(nanos_since_epoch(seen))
    }

    /// [`Stamp::racy`] with `seen` in nanoseconds since the epoch.
    pub fn racy_ns(&self, seen_ns: i128) -> bool {
        self.mtime_ns.saturating_add(racy_window_ns()) >= seen_ns
    }
}

/// [`RACY`] in nanoseconds. Test builds only: `RSPEC_SCOUT_TEST_RACY_MS` sets it, so a
/// test can see a stored answer trusted without waiting two seconds (a folder's change
/// time, which a test cannot set back, is always recent).
pub fn racy_window_ns() -> i128 {
    #[cfg(debug_assertions)]
    {
        static WINDOW: std::sync::OnceLock<i128> = std::sync::OnceLock::new();
        *WINDOW.get_or_init(|| {
            std::env::var("RSPEC_SCOUT_TEST_RACY_MS")
                .ok()
                .and_then(|v| v.parse::<u64>().ok())
                .map_or(RACY.as_nanos() as i128, |ms| i128::from(ms) * 1_000_000)
        })
    }
    #[cfg(not(debug_assertions))]
    {
        RACY.as_nanos() as i128
    }
}

/// `time` in nanoseconds since the epoch (0 before it).
pub fn nanos_since_epoch(time: SystemTime) -> i128 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_is_racy_within_two_seconds_of_being_seen() {
        let stamp = Stamp {
            mtime_ns: 10_000_000_000,
            size: 1,
            inode: 1,
            mode: 0o100644,
        };
        assert!(stamp.racy_ns(10_000_000_000));
        assert!(stamp.racy_ns(12_000_000_000));
        assert!(!stamp.racy_ns(12_000_000_001));
        // Modified after it was seen (a clock set back): never trusted.
        assert!(stamp.racy_ns(5));
    }
}
