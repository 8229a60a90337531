//! How work stops before it is done: a signal asks the run to stop, and a thread can carry a
//! cut-off time that every wait inside it respects (the end of a run, a minimisation's budget).
//!
//! Signals (SIGINT, SIGTERM, SIGHUP), once [`install_signal_handlers`] ran: while a loop that
//! honours stop requests is going on ([`honour`]), the first signal asks it to stop: the loop
//! abandons its cases in flight (every wait for an external program ends at once, the program is
//! killed, nothing is charged, and a minimisation under way gives up), prints its summary and
//! exits 128 + the signal (130 for Ctrl-C). A second signal, or any signal while nothing honours it, runs the
//! `on_hard_exit` hook (which kills every external program) and exits 128 + the signal at once.
//!
//! Cut-offs are per thread so that a caller far above a wait (the fuzz loop, the minimiser) can
//! bound it without threading a deadline through every target: [`within`] nests, the earliest
//! cut-off wins, and [`over`] says whether the current thread should give up waiting.

use std::cell::Cell;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::time::Instant;

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// The signal that asked the run to stop (0: none).
static REQUESTED: AtomicI32 = AtomicI32::new(0);
/// Loops currently honouring stop requests.
static HONOURING: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static CUT_OFF: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Handles SIGINT, SIGTERM and SIGHUP on a thread of their own (see the module doc).
pub fn install_signal_handlers(on_hard_exit: fn()) -> std::io::Result<()> {
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                let honoured = HONOURING.load(Ordering::SeqCst) > 0
                    && REQUESTED
                        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok();
                if honoured {
                    eprintln!(
                        "\nctxfuzz: stopping (signal {signal}): abandoning the cases in flight \
                         (their programs are killed) to print the summary; send it again to \
                         exit at once"
                    );
                    continue;
                }
                on_hard_exit();
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}

/// The signal that asked the run to stop, if one did.
pub fn requested() -> Option<i32> {
    match REQUESTED.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// Marks a loop that honours stop requests for as long as the guard lives.
#[must_use = "the loop honours stop requests only while the guard lives"]
pub fn honour() -> Honouring {
    HONOURING.fetch_add(1, Ordering::SeqCst);
    Honouring(())
}

pub struct Honouring(());

impl Drop for Honouring {
    fn drop(&mut self) {
        HONOURING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Runs `work` with `cut_off` (or the current thread's earlier one) as this thread's cut-off.
pub fn within<T>(cut_off: Instant, work: impl FnOnce() -> T) -> T {
    let outer = CUT_OFF.get();
    CUT_OFF.set(Some(outer.map_or(cut_off, |o| o.min(cut_off))));
    let result = work();
    CUT_OFF.set(outer);
    result
}

/// The current thread's cut-off, if any.
pub fn cut_off() -> Option<Instant> {
    CUT_OFF.get()
}

/// Whether the current thread should stop waiting: a stop was requested or its cut-off passed.
pub fn over() -> bool {
    requested().is_some() || cut_off().is_some_and(|c| Instant::now() >= c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_earliest_cut_off_wins_and_the_outer_one_comes_back() {
        let now = Instant::now();
        let (early, late) = (now + Duration::from_secs(1), now + Duration::from_secs(9));
        assert_eq!(cut_off(), None);
        within(early, || {
            within(late, || assert_eq!(cut_off(), Some(early)));
            assert_eq!(cut_off(), Some(early));
        });
        within(late, || {
            within(early, || assert_eq!(cut_off(), Some(early)))
        });
        assert_eq!(cut_off(), None);
    }

    #[test]
    fn a_passed_cut_off_is_over_and_a_future_one_is_not() {
        let now = Instant::now();
        assert!(within(now, over));
        assert!(!within(now + Duration::from_secs(60), over));
        assert!(!over());
    }
}
