//! Admission of CPU-bound work (renders, validations, exports) to the `--max-renders` render
//! slots. Transport-free: the HTTP routes and the MCP tools each say what a refusal means.

use crate::metrics::Metrics;
use passback_engine::Limits;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::Semaphore;

/// The render slots as one request sees them: a view of the server's state.
pub struct RenderSlots<'a> {
    pub permits: &'a Arc<Semaphore>,
    /// How long work waits for a slot (`--queue-timeout`).
    pub queue_timeout: Duration,
    /// The render budget the work runs under.
    pub limits: Limits,
    /// Where a refusal for want of a slot is counted.
    pub metrics: &'a Metrics,
}

/// Why work was not done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unadmitted {
    /// Every slot stayed taken for `waited` (the queue timeout): the server is busy.
    Busy { waited: Duration },
    /// The work failed on an internal error (it panicked).
    Failed,
}

/// What a front end says to work refused, where it says nothing of its own.
impl fmt::Display for Unadmitted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unadmitted::Busy { waited } => write!(
                f,
                "The server is busy: every render slot stayed taken for {} s; retry in a moment.",
                waited.as_secs_f64()
            ),
            Unadmitted::Failed => {
                f.write_str("The work failed on an internal error; please report it.")
            }
        }
    }
}

impl RenderSlots<'_> {
    /// Runs `work` on the blocking pool once a slot is free, with the render budget in force.
    /// Work that waits longer than the queue timeout for a slot is refused as
    /// [`Unadmitted::Busy`], so a burst of heavy documents queues for a bounded time instead of
    /// piling up memory and latency. The slot is held until the work really ends; if the
    /// request goes away first (its time is up, or the client left), the work is told to stop
    /// at its next block boundary.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Unadmitted> {
        let slot =
            tokio::time::timeout(self.queue_timeout, self.permits.clone().acquire_owned()).await;
        let Ok(Ok(slot)) = slot else {
            self.metrics.shed();
            return Err(Unadmitted::Busy {
                waited: self.queue_timeout,
            });
        };
        let cancel = Arc::new(AtomicBool::new(false));
        let _cancel_on_drop = CancelOnDrop(cancel.clone());
        let limits = self.limits;
        let job = move || {
            let _slot = slot;
            passback_engine::with_limits(limits, Some(cancel), work)
        };
        tokio::task::spawn_blocking(job)
            .await
            .map_err(|_| Unadmitted::Failed)
    }
}

/// Sets the flag when dropped: the future waiting for the work was dropped (or finished).
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}
