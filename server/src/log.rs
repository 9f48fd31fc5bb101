//! The log's writer: lines go through a bounded queue to a thread of their own that writes
//! them to standard error, so a request never waits on the log. When standard error is a pipe
//! nobody drains (a hung log shipper), the queue fills and further lines are dropped and
//! counted (`passback_log_lines_dropped_total` in `/metrics`) instead of stalling every
//! request.

use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};

/// Lines dropped because the queue was full, since the start.
static DROPPED: AtomicU64 = AtomicU64::new(0);

/// Lines the queue holds before it drops: a few seconds of a busy server's access log.
pub const QUEUE_LINES: usize = 4096;

/// Log lines dropped so far.
pub fn dropped() -> u64 {
    DROPPED.load(Ordering::Relaxed)
}

/// A writer for `tracing_subscriber::fmt().with_writer(…)` that never blocks.
#[derive(Clone)]
pub struct NonBlocking {
    queue: SyncSender<Vec<u8>>,
}

/// Starts the thread that writes the queued lines to standard error.
pub fn stderr() -> NonBlocking {
    let (queue, lines) = sync_channel::<Vec<u8>>(QUEUE_LINES);
    let spawned = std::thread::Builder::new()
        .name("passback-log".into())
        .spawn(move || {
            for line in lines {
                // Standard error is locked per line, never while waiting: the process's own
                // messages (`passback: …` before an exit) must get through. Nowhere to report
                // a failed write of the log itself.
                let _ = io::stderr().lock().write_all(&line);
            }
        });
    // Without the thread the queue's receiver is gone, and every line counts as dropped.
    drop(spawned);
    NonBlocking { queue }
}

impl NonBlocking {
    /// Queues one line (or counts it dropped).
    fn send(&self, line: &[u8]) {
        match self.queue.try_send(line.to_vec()) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                DROPPED.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

impl Write for NonBlocking {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.send(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for NonBlocking {
    type Writer = NonBlocking;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_queue_drops_and_counts_instead_of_blocking() {
        // A queue no thread drains: every line past its capacity is dropped at once.
        let (queue, _lines) = sync_channel::<Vec<u8>>(2);
        let mut w = NonBlocking { queue };
        let before = dropped();
        for _ in 0..5 {
            w.write_all(b"a line\n").unwrap();
        }
        assert!(dropped() - before >= 3);
    }
}
