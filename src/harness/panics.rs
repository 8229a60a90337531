//! Judging with panics caught: a panic inside a system under test or an oracle is a finding
//! (`no-panic`), never a crash of the fuzz loop, and its message is kept as evidence instead of
//! being printed over the progress bar.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use ctxfuzz_oracles::invariants::{Invariant, Judgement, Violation};
use serde::Serialize;

/// The invariant a panic breaks.
pub const NO_PANIC: Invariant = Invariant {
    id: "no-panic",
    statement: "neither the system under test nor the oracle panics on any input",
};

thread_local! {
    /// Set while this thread judges under [`judge`]: its panics are caught and reported.
    static CATCHING: Cell<bool> = const { Cell::new(false) };
    /// Where the last caught panic happened (the hook sees the location, the payload does not).
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs a judgement, turning a panic into a `no-panic` violation charged to the system under test.
pub fn catch(judge: impl FnOnce() -> Judgement) -> Judgement {
    install_hook();
    CATCHING.set(true);
    let result = panic::catch_unwind(AssertUnwindSafe(judge));
    CATCHING.set(false);
    result.unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic with a non-text payload".to_string());
        let location = LOCATION.take();
        let summary = format!("panicked: {message}");
        let evidence = PanicEvidence { message, location };
        Judgement::Fail(vec![Violation::charged(NO_PANIC, summary, evidence)])
    })
}

/// What a `no-panic` violation shows: the panic's message and where it was raised.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PanicEvidence {
    pub message: String,
    pub location: Option<String>,
}

/// Installs, once per process, a panic hook that stays silent for panics [`judge`] catches and
/// defers to the previous hook for every other panic (test failures keep their messages).
fn install_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CATCHING.get() {
                LOCATION.set(info.location().map(|l| l.to_string()));
            } else {
                previous(info);
            }
        }));
    });
}
