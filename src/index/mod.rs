//! The Ruby index: walk → read → parse (ruby-prism) → [`FileFacts`]. The only module that
//! sees syntax trees; every tree lives and dies inside one parallel task.

pub mod body;
mod dispatch;
pub mod facts;
mod loc;
pub mod parse;
pub mod spec_blocks;
pub mod walk;

use std::path::Path;

pub use facts::*;
pub use parse::{digest_normalized, extract, extract_with, ExtractOptions};
pub use walk::{Scope, SourceFile};

use rayon::prelude::*;

/// Stack size of worker threads. Prism bounds nesting and the extractor bounds its own
/// depth, but a deep tree still takes a few MB of stack; this leaves a wide margin.
pub const WORKER_STACK: usize = 64 * 1024 * 1024;

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
            max_file_size: crate::config::DEFAULT_MAX_FILE_SIZE,
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

/// Reads a file, refusing ones larger than `max_size`. Errors are a one-line reason.
pub fn read_source(path: &Path, max_size: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| io_reason(&e))?;
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
    let mut file = std::fs::File::open(path).map_err(|e| io_reason(&e))?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0) + 1);
    file.read_to_end(&mut bytes).map_err(|e| io_reason(&e))?;
    Ok(bytes)
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
    match read_source(&file.path, max_size) {
        Ok(bytes) => extract(&file.rel, &bytes),
        Err(reason) => FileFacts {
            path: file.rel.clone(),
            skipped: Some(reason),
            utf8: true,
            ..FileFacts::default()
        },
    }
}

/// Indexes files in parallel; the result is in the order of `files`.
pub fn index_files(files: &[SourceFile], options: &IndexOptions) -> Vec<FileFacts> {
    let max = options.max_file_size;
    in_pool(options.threads, || {
        files.par_iter().map(|f| index_file(f, max)).collect()
    })
}
