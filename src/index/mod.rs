//! The Ruby index: walk → read → parse (ruby-prism) → [`FileFacts`]. The only module that
//! sees syntax trees; every tree lives and dies inside one parallel task.

mod absorb;
pub mod body;
pub mod cache;
mod dispatch;
mod facts;
mod loc;
pub(crate) use loc::count_byte;
mod parse;
pub(crate) mod prism;
pub mod spec_blocks;
pub mod stamp;
pub mod walk;
pub mod walked;

use std::path::Path;

pub use absorb::{absorbed, Absorber};
pub use facts::*;
pub use parse::{digest_normalized, extract, extract_with, ExtractOptions};
pub use walk::{Scope, SourceFile};

use rayon::prelude::*;

/// Stack size of worker threads. Prism bounds nesting and the extractor bounds its own
/// depth, but a deep tree still takes a few MB of stack; this leaves a wide margin.
pub const WORKER_STACK: usize = 64 * 1024 * 1024;

/// Files larger than this are not read unless configured (`max_file_size`).
pub const DEFAULT_MAX_FILE_SIZE: u64 = 16 * 1024 * 1024;

/// How to index.
#[derive(Debug, Clone, Copy)]
pub struct IndexOptions {
    /// Worker threads (0 = one per core).
    pub threads: usize,
    /// Larger files are not read.
    pub max_file_size: u64,
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            threads: 0,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
        }
    }
}

/// Runs `f` on a pool of `threads` workers with large stacks. Falls back to the current
/// thread if a pool cannot be created.
pub fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    match rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(WORKER_STACK)
        .thread_name(|i| format!("rspec-scout-{i}"))
        .build()
    {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}

/// What identifies a version of a file's content in the caches (the facts cache, the
/// stored plan, the MCP server's warm index): 128 bits of XXH3.
pub type ContentDigest = [u8; 16];

/// The [`ContentDigest`] of `bytes`. XXH3-128, not a cryptographic hash: it tells a
/// file's versions apart (an accidental collision is a 2^-128 chance), at about five times
/// the speed of sha256 on this tree's files, the cost a cold run pays for every file it
/// reads; it is no defence against someone who writes colliding versions of a file on
/// purpose, who could as well write the file the plan should not see.
pub fn content_digest(bytes: &[u8]) -> ContentDigest {
    xxhash_rust::xxh3::xxh3_128(bytes).to_le_bytes()
}

/// Reads a file, refusing ones larger than `max_size`. Errors are a one-line reason.
pub fn read_source(path: &Path, max_size: u64) -> Result<Vec<u8>, String> {
    read_source_stamped(path, max_size).map(|(bytes, _)| bytes)
}

/// [`read_source`], with the file's [`stamp::Stamp`] as measured through the open file
/// before it was read (a write after that changes the stamp).
pub fn read_source_stamped(path: &Path, max_size: u64) -> Result<(Vec<u8>, stamp::Stamp), String> {
    use std::io::Read;
    let mut file = open_source(path)?;
    // Measured through the open file: the path is looked up once.
    let meta = file.metadata().map_err(|e| io_reason(&e))?;
    if meta.is_dir() {
        return Err("cannot read: is a directory".to_string());
    }
    if !meta.is_file() {
        // A FIFO or device named `.rb` would block or never end.
        return Err("not a regular file; not read".to_string());
    }
    if meta.len() > max_size {
        return Err(format!(
            "file is {} (over max_file_size, {}); not parsed. Raise max_file_size in .rspec-scout.yml to include it",
            human_size(meta.len()),
            human_size(max_size)
        ));
    }
    // The size is known: `File::read_to_end` would ask for it again (fstat and lseek, two
    // system calls per file, 100,000 on a 50k-file tree). One byte over the size, so the
    // usual file is read in one call and its end seen in the next.
    let mut bytes = vec![0u8; usize::try_from(meta.len()).unwrap_or(0).saturating_add(1)];
    let mut filled = 0usize;
    loop {
        if filled == bytes.len() {
            // The file grew since it was measured.
            if filled as u64 > max_size {
                return Err(format!(
                    "file grew over max_file_size ({}) while read; not parsed",
                    human_size(max_size)
                ));
            }
            bytes.resize(filled.saturating_mul(2).max(8192), 0);
        }
        match file.read(bytes.get_mut(filled..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_reason(&e)),
        }
    }
    bytes.truncate(filled);
    Ok((bytes, stamp::Stamp::from_meta(&meta)))
}

/// Opens `path` for reading without waiting: a FIFO with no writer would block `open`
/// itself, before the file could be measured. `O_NONBLOCK` changes nothing for a regular
/// file's reads; `O_NOCTTY` keeps a terminal named `.rb` from becoming this process's.
#[cfg(unix)]
fn open_source(path: &Path) -> Result<std::fs::File, String> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| match std::fs::metadata(path) {
            // A device that refuses to open (`/dev/tty` without a terminal) is reported
            // as what it is, as when it opens.
            Ok(meta) if !meta.is_file() && !meta.is_dir() => {
                "not a regular file; not read".to_string()
            }
            _ => io_reason(&e),
        })
}

/// Opens `path` for reading, once it is known to be a regular file (elsewhere `open`
/// cannot be told not to wait).
#[cfg(not(unix))]
fn open_source(path: &Path) -> Result<std::fs::File, String> {
    let meta = std::fs::metadata(path).map_err(|e| io_reason(&e))?;
    if meta.is_dir() {
        return Err("cannot read: is a directory".to_string());
    }
    if !meta.is_file() {
        return Err("not a regular file; not read".to_string());
    }
    std::fs::File::open(path).map_err(|e| io_reason(&e))
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => "cannot read: permission denied".to_string(),
        std::io::ErrorKind::NotFound => "cannot read: file not found".to_string(),
        _ if e.raw_os_error() == Some(21) => "cannot read: is a directory".to_string(),
        _ => format!("cannot read: {e}"),
    }
}

/// `52.4 MB`, `900 B`.
pub fn human_size(bytes: u64) -> String {
    const MB: f64 = 1024.0 * 1024.0;
    let b = bytes as f64;
    if b >= MB {
        format!("{:.1} MB", b / MB)
    } else if b >= 1024.0 {
        format!("{:.1} KB", b / 1024.0)
    } else {
        format!("{bytes} B")
    }
}

/// Reads and indexes one file; a file that cannot be read gives facts with `skipped` set.
pub fn index_file(file: &SourceFile, max_size: u64) -> FileFacts {
    index_file_with(file, max_size, &ExtractOptions::default())
}

/// Like [`index_file`], with options.
pub fn index_file_with(file: &SourceFile, max_size: u64, options: &ExtractOptions) -> FileFacts {
    match read_source(&file.path, max_size) {
        Ok(bytes) => extract_with(&file.rel, &bytes, options),
        Err(reason) => unread(&file.rel, reason),
    }
}

/// The facts of a file that could not be read.
pub(crate) fn unread(rel: &str, reason: String) -> FileFacts {
    FileFacts {
        path: rel.to_string(),
        skipped: Some(reason),
        utf8: true,
        ..FileFacts::default()
    }
}

/// Indexes files in parallel; the result is in the order of `files`.
pub fn index_files(files: &[SourceFile], options: &IndexOptions) -> Vec<FileFacts> {
    let max = options.max_file_size;
    in_pool(options.threads, || {
        files.par_iter().map(|f| index_file(f, max)).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("rspec-scout-read-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn read_source_returns_the_exact_bytes_at_every_size() {
        let dir = temp_dir("sizes");
        // Empty, one byte, a typical file, and sizes around the buffer growth step (8 KiB).
        for len in [0usize, 1, 300, 8191, 8192, 8193, 70_000] {
            let body: Vec<u8> = (0..len).map(|i| b"class A; end\n"[i % 13]).collect();
            let path = dir.join(format!("f{len}.rb"));
            std::fs::write(&path, &body).unwrap();
            let read = read_source(&path, 1 << 20).unwrap();
            assert_eq!(read.len(), len);
            assert!(read == body, "content differs at size {len}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn read_source_refuses_large_files_directories_and_missing_paths() {
        let dir = temp_dir("refuse");
        let big = dir.join("big.rb");
        std::fs::write(&big, vec![b'#'; 2048]).unwrap();
        let err = read_source(&big, 1024).unwrap_err();
        assert!(err.contains("over max_file_size"), "{err}");
        assert!(read_source(&big, 2048).is_ok());
        let err = read_source(&dir, 1024).unwrap_err();
        assert_eq!(err, "cannot read: is a directory");
        let err = read_source(&dir.join("gone.rb"), 1024).unwrap_err();
        assert_eq!(err, "cannot read: file not found");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn read_source_refuses_a_fifo_without_waiting_for_a_writer() {
        let dir = temp_dir("fifo");
        let fifo = dir.join("pipe.rb");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        // Opened without O_NONBLOCK, the read would wait for a writer forever.
        let (tx, rx) = std::sync::mpsc::channel();
        let path = fifo.clone();
        std::thread::spawn(move || tx.send(read_source(&path, 1024)).unwrap());
        let answer = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("read_source waited on the FIFO");
        assert_eq!(answer.unwrap_err(), "not a regular file; not read");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn read_source_reports_devices_whether_they_open_or_not() {
        // `/dev/null` opens; `/dev/tty` refuses without a controlling terminal (as under
        // CI) and opens with one: either way the answer is the same.
        for device in ["/dev/null", "/dev/tty"] {
            if !Path::new(device).exists() {
                continue;
            }
            let err = read_source(Path::new(device), 1024).unwrap_err();
            assert_eq!(err, "not a regular file; not read", "{device}");
        }
    }
}
