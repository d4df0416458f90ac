//! Progress on stderr for the binary: a bar on a terminal once a run has lasted half a
//! second, or JSON lines (`--progress json`): each phase's start, every tenth of its items
//! and its finish.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rspec_scout::report::{OnPhase, PhaseEvent, Progress};

/// How long a run goes before a bar appears: shorter runs print nothing.
const BAR_DELAY: Duration = Duration::from_millis(500);
/// The shortest time between two redraws of the bar.
const REDRAW: Duration = Duration::from_millis(80);

/// What the binary prints for the phases of a run.
#[derive(Clone)]
pub struct Printer {
    kind: Kind,
}

#[derive(Clone)]
enum Kind {
    Nothing,
    Json,
    Bar(Arc<Mutex<Bar>>),
}

/// The bar's state.
struct Bar {
    started: Instant,
    last_draw: Option<Instant>,
    /// Whether a bar is on the screen (to be cleared before the answer is printed).
    shown: bool,
}

impl Printer {
    /// The printer for `--progress` (nothing with `--quiet`, nor a bar when stderr is not
    /// a terminal).
    pub fn new(progress: Progress, quiet: bool) -> Self {
        let kind = match progress {
            _ if quiet => Kind::Nothing,
            Progress::Json => Kind::Json,
            Progress::Auto if std::io::stderr().is_terminal() => {
                Kind::Bar(Arc::new(Mutex::new(Bar {
                    started: Instant::now(),
                    last_draw: None,
                    shown: false,
                })))
            }
            Progress::Auto | Progress::Never => Kind::Nothing,
        };
        Printer { kind }
    }

    /// The callback the library reports phases to.
    pub fn on_phase(&self) -> OnPhase {
        match &self.kind {
            Kind::Nothing => OnPhase::default(),
            Kind::Json => OnPhase::new(|event| {
                if let Some(line) = json_line(event) {
                    let _ = writeln!(std::io::stderr().lock(), "{line}");
                }
            }),
            Kind::Bar(bar) => {
                let bar = Arc::clone(bar);
                OnPhase::new(move |event| {
                    if let Ok(mut bar) = bar.lock() {
                        bar.draw(event);
                    }
                })
            }
        }
    }

    /// Clears the bar, if one is shown, so the answer starts on a clean line.
    pub fn clear(&self) {
        if let Kind::Bar(bar) = &self.kind {
            if let Ok(mut bar) = bar.lock() {
                bar.clear();
            }
        }
    }
}

/// The JSON line of an event: every start and finish, and the items done at each tenth of
/// a phase (so a phase of any size prints at most ten progress lines).
pub fn json_line(event: &PhaseEvent<'_>) -> Option<String> {
    match *event {
        PhaseEvent::Start { phase, total } => Some(format!(
            "{{\"phase\":\"{phase}\",\"event\":\"start\",\"total\":{total}}}"
        )),
        PhaseEvent::Advance { phase, done, total } => {
            let tenth = |n: usize| n.saturating_mul(10) / total.max(1);
            (total > 0 && done <= total && tenth(done) > tenth(done.saturating_sub(1))).then(
                || {
                    format!(
                        "{{\"phase\":\"{phase}\",\"event\":\"progress\",\"done\":{done},\"total\":{total}}}"
                    )
                },
            )
        }
        PhaseEvent::Finish {
            phase,
            total,
            elapsed_ms,
        } => Some(format!(
            "{{\"phase\":\"{phase}\",\"event\":\"finish\",\"total\":{total},\"elapsed_ms\":{elapsed_ms}}}"
        )),
    }
}

impl Bar {
    fn draw(&mut self, event: &PhaseEvent<'_>) {
        let now = Instant::now();
        if now.duration_since(self.started) < BAR_DELAY {
            return;
        }
        let forced = matches!(event, PhaseEvent::Start { .. });
        if !forced
            && self
                .last_draw
                .is_some_and(|last| now.duration_since(last) < REDRAW)
        {
            return;
        }
        let line = match *event {
            PhaseEvent::Start { phase, total } => bar_line(phase, 0, total, self.started),
            PhaseEvent::Advance { phase, done, total } => {
                bar_line(phase, done, total, self.started)
            }
            PhaseEvent::Finish { phase, total, .. } => bar_line(phase, total, total, self.started),
        };
        let _ = write!(std::io::stderr().lock(), "\r\x1b[2K{line}");
        self.last_draw = Some(now);
        self.shown = true;
    }

    fn clear(&mut self) {
        if self.shown {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
            self.shown = false;
        }
    }
}

/// `rspec-scout: parse [########------------]  1234/3000 files  1.4s`
fn bar_line(phase: &str, done: usize, total: usize, started: Instant) -> String {
    const WIDTH: usize = 24;
    let seconds = started.elapsed().as_secs_f64();
    if total == 0 {
        return format!("rspec-scout: {phase} ...  {seconds:.1}s");
    }
    let filled = (done.min(total) * WIDTH) / total;
    format!(
        "rspec-scout: {phase:<8} [{}{}]  {done}/{total} files  {seconds:.1}s",
        "#".repeat(filled),
        "-".repeat(WIDTH - filled)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_report_start_tenths_and_finish() {
        let lines: Vec<String> = std::iter::once(PhaseEvent::Start {
            phase: "parse",
            total: 25,
        })
        .chain((1..=25).map(|done| PhaseEvent::Advance {
            phase: "parse",
            done,
            total: 25,
        }))
        .chain(std::iter::once(PhaseEvent::Finish {
            phase: "parse",
            total: 25,
            elapsed_ms: 7,
        }))
        .filter_map(|e| json_line(&e))
        .collect();
        let done: Vec<String> = lines
            .iter()
            .filter_map(|l| l.split("\"done\":").nth(1))
            .map(|rest| rest.split(',').next().unwrap_or("").to_string())
            .collect();
        assert_eq!(
            done,
            ["3", "5", "8", "10", "13", "15", "18", "20", "23", "25"]
        );
        assert_eq!(
            lines.first().map(String::as_str),
            Some("{\"phase\":\"parse\",\"event\":\"start\",\"total\":25}")
        );
        assert_eq!(
            lines.last().map(String::as_str),
            Some("{\"phase\":\"parse\",\"event\":\"finish\",\"total\":25,\"elapsed_ms\":7}")
        );
    }

    #[test]
    fn the_bar_fills_with_the_items_done() {
        let line = bar_line("parse", 12, 24, Instant::now());
        assert!(
            line.starts_with("rspec-scout: parse    [############------------]  12/24 files  "),
            "{line}"
        );
    }
}
