//! Answers and errors in the three output formats: YAML (the agent contract, default), JSON,
//! and text for people. Answer types live here, separate from internal types.

pub(crate) mod discover;
pub(crate) mod status;
pub(crate) mod symbols;

use serde::Serialize;
use serde_yaml::Value;

use crate::error::Error;
use crate::yaml;

pub use crate::vocab::{AnswerSize, Format, Progress};

/// Where a long command reports its phases (`walk`, `parse`, `plan`, `metadata`, ...):
/// each one's start, every item done, and its end. The binary decides what to print
/// (`--progress`: a bar on a terminal, JSON lines); the library never writes to stderr
/// itself. The default reports nothing.
#[derive(Clone, Default)]
pub struct OnPhase(Option<std::sync::Arc<PhaseFn>>);

/// What is reported.
type PhaseFn = dyn Fn(&PhaseEvent<'_>) + Send + Sync;

/// A progress event of a long command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhaseEvent<'a> {
    /// Phase `phase` starts, over `total` items (0 when not known ahead, as for a walk).
    Start {
        /// The phase's name.
        phase: &'a str,
        /// Items (files) it covers.
        total: usize,
    },
    /// One more item of the phase is done: `done` of `total`.
    Advance {
        /// The phase's name.
        phase: &'a str,
        /// Items done so far.
        done: usize,
        /// Items it covers.
        total: usize,
    },
    /// The phase ended, over `total` items, after `elapsed_ms`.
    Finish {
        /// The phase's name.
        phase: &'a str,
        /// Items it covered.
        total: usize,
        /// How long it took.
        elapsed_ms: u64,
    },
}

impl OnPhase {
    /// Reports events to `report`.
    pub fn new(report: impl Fn(&PhaseEvent<'_>) + Send + Sync + 'static) -> Self {
        OnPhase(Some(std::sync::Arc::new(report)))
    }

    /// Starts phase `name` over `total` items; the phase ends when the returned guard is
    /// finished or dropped.
    pub fn start(&self, name: &'static str, total: usize) -> Phase {
        if let Some(report) = &self.0 {
            report(&PhaseEvent::Start { phase: name, total });
        }
        Phase {
            report: self.0.clone(),
            name,
            total: std::sync::atomic::AtomicUsize::new(total),
            done: std::sync::atomic::AtomicUsize::new(0),
            started: std::time::Instant::now(),
        }
    }
}

/// A phase under way (see [`OnPhase::start`]): shared by the threads that do its items.
pub struct Phase {
    report: Option<std::sync::Arc<PhaseFn>>,
    name: &'static str,
    total: std::sync::atomic::AtomicUsize,
    done: std::sync::atomic::AtomicUsize,
    started: std::time::Instant,
}

impl Phase {
    /// One more item is done.
    pub fn tick(&self) {
        use std::sync::atomic::Ordering;
        if let Some(report) = &self.report {
            let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
            report(&PhaseEvent::Advance {
                phase: self.name,
                done,
                total: self.total.load(Ordering::Relaxed),
            });
        }
    }

    /// The number of items, once it is known (a walk learns it at its end).
    pub fn set_total(&self, total: usize) {
        self.total
            .store(total, std::sync::atomic::Ordering::Relaxed);
    }

    /// Ends the phase (as dropping it does).
    pub fn finish(self) {}
}

impl Drop for Phase {
    fn drop(&mut self) {
        if let Some(report) = &self.report {
            report(&PhaseEvent::Finish {
                phase: self.name,
                total: self.total.load(std::sync::atomic::Ordering::Relaxed),
                elapsed_ms: millis(self.started),
            });
        }
    }
}

impl std::fmt::Debug for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Phase({})", self.name)
    }
}

impl std::fmt::Debug for OnPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "OnPhase(..)"
        } else {
            "OnPhase(none)"
        })
    }
}

/// An answer too large to hold as a value: written straight to the output in the format
/// asked for, when it is printed (`discover`'s plan can hold hundreds of thousands of
/// methods).
pub trait Streamed: std::fmt::Debug + Send + Sync {
    /// Writes the whole answer in `format`.
    fn write(&self, format: Format, out: &mut dyn std::io::Write) -> std::io::Result<()>;
}

/// What a command produced: the structured answer, its text rendering and the exit code.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The structured answer (rendered as YAML or JSON); `Null` for a [`Streamed`] answer,
    /// which only exists as its rendering ([`Answer::render`], [`Answer::write`]).
    pub value: Value,
    /// The rendering for `--format text` (empty for a [`Streamed`] answer).
    pub text: String,
    /// Process exit code.
    pub exit_code: u8,
    /// One-line messages for stderr (a summary of an error, warnings for people).
    pub stderr: Vec<String>,
    /// The answer written on demand, when it is one.
    streamed: Option<std::sync::Arc<dyn Streamed>>,
    /// How it is cut down when it is too large for its reader (see [`Answer::sized`]).
    sizing: Option<std::sync::Arc<Sizing>>,
    /// Whether it is an error answer ([`Answer::from_error`]).
    error: bool,
    /// Work the command left running while the answer is printed.
    background: Option<std::sync::Arc<Background>>,
}

/// Work a command leaves running on threads of their own when it answers (a cache or a
/// stored plan being written), so it is done while the answer is printed: waited for by
/// [`Answer::wait`], or when the last copy of the answer is dropped, so no process ends
/// with a write half done.
#[derive(Default)]
pub struct Background(std::sync::Mutex<Vec<std::thread::JoinHandle<()>>>);

impl Background {
    /// Waits for every thread.
    pub fn wait(&self) {
        let handles: Vec<_> = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .drain(..)
            .collect();
        for handle in handles {
            let _ = handle.join();
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.wait();
    }
}

impl std::fmt::Debug for Background {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Background")
    }
}

/// How an answer too large for its reader is cut down: the whole answer is written to a
/// file and a compact one, built by `compact`, is printed instead. With
/// [`AnswerSize::Auto`] that happens only when the whole answer is over `limit` bytes in
/// the format asked; with [`AnswerSize::Compact`] always; never with
/// [`AnswerSize::Full`].
pub struct Sizing {
    /// `--answer`.
    pub size: AnswerSize,
    /// The largest answer printed whole, in bytes (`answer_limit`).
    pub limit: usize,
    /// Where the whole answer is written, without extension (`.yml`, `.json` or `.txt` is
    /// added for the format); `None` when nothing may be written.
    pub full_path: Option<std::path::PathBuf>,
    /// The root `full_path` is shown relative to.
    pub root: std::path::PathBuf,
    /// Why no file is written, when `full_path` is `None`.
    pub no_file: Option<String>,
    /// Builds the compact answer from where the whole one went.
    pub compact: std::sync::Arc<CompactFn>,
}

/// Builds a compact answer.
pub type CompactFn = dyn Fn(&Whole) -> Answer + Send + Sync;

/// What a command decides of a [`Sizing`]; the answer's builder adds its compact form.
#[derive(Debug, Clone)]
pub struct SizeRule {
    /// `--answer`.
    pub size: AnswerSize,
    /// `answer_limit`.
    pub limit: usize,
    /// Where the whole answer goes, without extension.
    pub full_path: Option<std::path::PathBuf>,
    /// The root paths are shown relative to.
    pub root: std::path::PathBuf,
    /// Why no file is written, when none may be.
    pub no_file: Option<String>,
}

impl SizeRule {
    /// The sizing, with the builder of the compact answer.
    pub fn with(self, compact: std::sync::Arc<CompactFn>) -> Sizing {
        Sizing {
            size: self.size,
            limit: self.limit,
            full_path: self.full_path,
            root: self.root,
            no_file: self.no_file,
            compact,
        }
    }
}

impl std::fmt::Debug for Sizing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Sizing({}, {} bytes, {:?})",
            self.size, self.limit, self.full_path
        )
    }
}

/// Where the whole answer went, for the compact one to say.
#[derive(Debug, Clone)]
pub struct Whole {
    /// The file holding it, relative to the root when below it (`None`: not written).
    pub path: Option<String>,
    /// Its size in bytes, in the format asked, when it was written (an answer nobody
    /// reads is not rendered to be counted: on a large tree that is most of the output's
    /// time).
    pub bytes: Option<u64>,
    /// Whether it was found over `limit` (`--answer auto`); known even when not counted.
    pub over_limit: bool,
    /// `answer_limit`.
    pub limit: usize,
    /// The format asked.
    pub format: Format,
    /// Why it was not written, when it was not.
    pub note: Option<String>,
}

/// A writer that keeps at most `limit` bytes and fails past them.
struct Capped {
    bytes: Vec<u8>,
    limit: usize,
    over: bool,
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > self.limit {
            self.over = true;
            return Err(std::io::Error::other("answer over the limit"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A writer that counts bytes.
struct Counted<W>(W, u64);

impl<W: std::io::Write> std::io::Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.0.write(buf)?;
        self.1 += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

impl Answer {
    /// An answer from any serializable value; `text` is the people's rendering.
    pub fn new<T: Serialize>(answer: &T, text: String, exit_code: u8) -> Self {
        Answer {
            value: to_value(answer),
            text,
            exit_code,
            stderr: Vec::new(),
            streamed: None,
            sizing: None,
            error: false,
            background: None,
        }
    }

    /// An answer written straight to the output when it is printed.
    pub fn streamed(answer: impl Streamed + 'static, exit_code: u8) -> Self {
        Self::streamed_shared(std::sync::Arc::new(answer), exit_code)
    }

    /// An answer written straight to the output when it is printed, shared with whoever
    /// else needs it (the builder of its compact form).
    pub fn streamed_shared(answer: std::sync::Arc<dyn Streamed>, exit_code: u8) -> Self {
        Answer {
            value: Value::Null,
            text: String::new(),
            exit_code,
            stderr: Vec::new(),
            streamed: Some(answer),
            sizing: None,
            error: false,
            background: None,
        }
    }

    /// The answer, cut down as `sizing` says when it is printed.
    pub fn sized(mut self, sizing: Sizing) -> Self {
        self.sizing = Some(std::sync::Arc::new(sizing));
        self
    }

    /// This answer, with `threads` left running while it is printed (see [`Background`]).
    pub fn with_background(mut self, threads: Vec<std::thread::JoinHandle<()>>) -> Self {
        if !threads.is_empty() {
            let background = self.background.get_or_insert_with(Default::default);
            background
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .extend(threads);
        }
        self
    }

    /// Waits for the work the command left running (see [`Background`]).
    pub fn wait(&self) {
        if let Some(background) = &self.background {
            background.wait();
        }
    }

    /// Whether it is an error answer (`status: error`, exit 1).
    pub fn is_error(&self) -> bool {
        self.error
    }

    /// Writes the answer in `format` to `out` (a streamed answer without building it), or
    /// its compact form with the whole answer written to a file, as its sizing says.
    pub fn write(&self, format: Format, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let Some(sizing) = self.sizing.as_ref().filter(|s| s.size != AnswerSize::Full) else {
            return self.write_whole(format, out);
        };
        if sizing.size == AnswerSize::Auto {
            let mut capped = Capped {
                bytes: Vec::new(),
                limit: sizing.limit,
                over: false,
            };
            let written = self.write_whole(format, &mut capped);
            if !capped.over {
                written?;
                return out.write_all(&capped.bytes);
            }
        }
        let mut whole = self.write_to_file(format, sizing);
        whole.over_limit = sizing.size == AnswerSize::Auto;
        (sizing.compact)(&whole).write(format, out)
    }

    /// The whole answer, never cut down.
    fn write_whole(&self, format: Format, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        match &self.streamed {
            Some(streamed) => streamed.write(format, out),
            None => out.write_all(self.render_value(format).as_bytes()),
        }
    }

    /// Writes the whole answer to the sizing's file (atomically, under its folder's lock),
    /// and says where it went and its size; when it cannot be written, neither.
    fn write_to_file(&self, format: Format, sizing: &Sizing) -> Whole {
        let mut whole = Whole {
            path: None,
            bytes: None,
            over_limit: false,
            limit: sizing.limit,
            format,
            note: sizing.no_file.clone(),
        };
        if let Some(base) = &sizing.full_path {
            let ext = match format {
                Format::Yaml => "yml",
                Format::Json => "json",
                Format::Text => "txt",
            };
            let path = base.with_extension(ext);
            // The guard clears the file: inside the root, not through a link out of it.
            let written = crate::guard::file(&sizing.root, &path).and_then(|target| {
                crate::metadata::write_stream_atomic(&target, |out| {
                    let mut counted = Counted(out, 0);
                    self.write_whole(format, &mut counted)?;
                    Ok(counted.1)
                })
            });
            match written {
                Ok(bytes) => {
                    whole.bytes = Some(bytes);
                    whole.path = Some(
                        crate::index::walk::relative_to(&sizing.root, &path)
                            .unwrap_or_else(|| path.display().to_string()),
                    );
                    whole.note = None;
                    return whole;
                }
                Err(e) => whole.note = Some(format!("the whole answer could not be written: {e}")),
            }
        }
        whole
    }

    /// The answer for an error: `status: error` with `error`, `details`, `suggestion`,
    /// `error_code`, `recoverable`; exit 1.
    pub fn from_error(err: &Error) -> Self {
        let body = ErrorAnswer {
            status: "error",
            error: err.message(),
            details: err.details(),
            suggestion: err.suggestion(),
            error_code: err.code(),
            recoverable: err.recoverable(),
        };
        // With --format text the whole error goes to stderr (the binary prints it there).
        let text = format!(
            "rspec-scout: error: {} ({})\n  details: {}\n  suggestion: {}\n",
            body.error, body.error_code, body.details, body.suggestion
        );
        Answer {
            value: to_value(&body),
            text,
            exit_code: 1,
            stderr: vec![format!("rspec-scout: {} ({})", err.message(), err.code())],
            streamed: None,
            sizing: None,
            error: true,
            background: None,
        }
    }

    /// The answer rendered in `format` (cut down as its sizing says, as it is printed).
    pub fn render(&self, format: Format) -> String {
        let mut out = Vec::new();
        // Writing to memory does not fail; the text is UTF-8 by construction.
        let _ = self.write(format, &mut out);
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    /// A value answer rendered in `format`.
    fn render_value(&self, format: Format) -> String {
        match format {
            Format::Yaml => yaml::to_string(&self.value),
            Format::Json => {
                let mut s = serde_json::to_string_pretty(&JsonView(&self.value))
                    .unwrap_or_else(|_| "{}".to_string());
                s.push('\n');
                s
            }
            Format::Text => self.text.clone(),
        }
    }
}

/// The error shape of the contract.
#[derive(Debug, Serialize)]
pub struct ErrorAnswer {
    /// Always `error`.
    pub status: &'static str,
    /// One line.
    pub error: String,
    /// More detail.
    pub details: String,
    /// What to do.
    pub suggestion: String,
    /// Stable code.
    pub error_code: &'static str,
    /// Whether fixing the input and re-running can succeed.
    pub recoverable: bool,
}

pub use crate::yaml::to_value;

/// Milliseconds since `since`, for the `timings` of an answer.
pub fn millis(since: std::time::Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A YAML value written as JSON in its own key order (the order of the answer types, as
/// the pipeline's scripts print them): symbols become their names, non-string keys their
/// text.
struct JsonView<'a>(&'a Value);

impl Serialize for JsonView<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self.0 {
            Value::Mapping(map) => {
                let mut out = serializer.serialize_map(Some(map.len()))?;
                for (k, v) in map {
                    let key = match k {
                        Value::String(s) => s.clone(),
                        other => crate::ruby::to_s(other),
                    };
                    out.serialize_entry(&key, &JsonView(v))?;
                }
                out.end()
            }
            Value::Sequence(items) => serializer.collect_seq(items.iter().map(JsonView)),
            Value::Tagged(t) => match yaml::as_symbol(self.0) {
                Some(name) => serializer.serialize_str(name),
                None => JsonView(&t.value).serialize(serializer),
            },
            scalar => to_json(scalar).serialize(serializer),
        }
    }
}

/// A YAML value as JSON: symbols become their names, non-string keys their text.
pub fn to_json(value: &Value) -> serde_json::Value {
    match value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                serde_json::Value::from(i)
            } else if let Some(u) = n.as_u64() {
                serde_json::Value::from(u)
            } else {
                serde_json::Number::from_f64(n.as_f64().unwrap_or(0.0))
                    .map_or(serde_json::Value::Null, serde_json::Value::Number)
            }
        }
        Value::String(s) => serde_json::Value::String(s.clone()),
        Value::Sequence(items) => serde_json::Value::Array(items.iter().map(to_json).collect()),
        Value::Mapping(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                let key = match k {
                    Value::String(s) => s.clone(),
                    other => crate::ruby::to_s(other),
                };
                out.insert(key, to_json(v));
            }
            serde_json::Value::Object(out)
        }
        Value::Tagged(t) => match yaml::as_symbol(value) {
            Some(name) => serde_json::Value::String(name.to_string()),
            None => to_json(&t.value),
        },
    }
}

/// `text` cut to at most `max` bytes (at a character boundary), saying how much was left
/// out: an answer never echoes a megabyte of input back.
pub fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes more)", &text[..end], text.len() - end)
}

/// `1 file`, `2 files`: counts in text output read as English.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}
