//! The progress display of a fuzz run: an indicatif bar (execs, execs/s, findings) on a terminal,
//! plain periodic lines otherwise (CI logs), nothing at all for tests and benchmarks.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often a plain line is printed when stdout is not a terminal.
const PLAIN_INTERVAL: Duration = Duration::from_secs(10);

pub enum Progress {
    Hidden,
    Bar(ProgressBar),
    Plain { label: String, last: Instant },
}

/// What the display shows at one moment.
#[derive(Debug, Clone, Copy, Default)]
pub struct Snapshot {
    pub execs: u64,
    pub elapsed: Duration,
    pub findings: u64,
    pub other: u64,
}

impl Snapshot {
    fn line(&self) -> String {
        let seconds = self.elapsed.as_secs_f64();
        let rate = if seconds > 0.0 {
            self.execs as f64 / seconds
        } else {
            0.0
        };
        format!(
            "execs {}  execs/s {:.0}  findings {}  (+{} not charged)  {:.0}s",
            self.execs, rate, self.findings, self.other, seconds
        )
    }
}

impl Progress {
    /// A bar when stdout is a terminal, plain lines otherwise.
    pub fn for_stdout(label: &str) -> Progress {
        if std::io::stdout().is_terminal() {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stdout());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {prefix} {msg}")
                    .expect("the template is valid"),
            );
            bar.set_prefix(label.to_string());
            bar.enable_steady_tick(Duration::from_millis(120));
            Progress::Bar(bar)
        } else {
            Progress::Plain {
                label: label.to_string(),
                last: Instant::now(),
            }
        }
    }

    pub fn update(&mut self, now: Snapshot) {
        match self {
            Progress::Hidden => {}
            Progress::Bar(bar) => bar.set_message(now.line()),
            Progress::Plain { label, last } => {
                if last.elapsed() >= PLAIN_INTERVAL {
                    println!("{label}: {}", now.line());
                    *last = Instant::now();
                }
            }
        }
    }

    /// Prints a block of text without tearing the bar.
    pub fn println(&self, text: &str) {
        match self {
            Progress::Hidden => {}
            Progress::Bar(bar) => bar.suspend(|| print!("{text}")),
            Progress::Plain { .. } => print!("{text}"),
        }
    }

    pub fn finish(&self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}
