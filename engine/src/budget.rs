//! The render budget: how much work one document may ask for, in proportion to its size and
//! capped by the host's [`Limits`]. A few bytes of Markdown can ask for far more than their
//! size: a GFM table fills every short row with empty cells up to its header's width, and a
//! Mermaid `&` group joins every node on one side with every node on the other. Each such
//! multiplier is counted from the text before the tree or the markup is built, and what goes
//! over the budget is shown as text (or drawn without its comment fields) with a warning that
//! names it and its line; the rest of the document renders as usual.
//!
//! The limits in force are set per thread by [`with_limits`] (a server sets them around the
//! render it runs on its blocking pool); everywhere else the defaults apply. The same scope
//! carries a cancellation flag, checked between blocks: a render whose request is gone stops
//! instead of running to the end.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Caps on the work one document may ask for. Each budget is proportional to the document's
/// size (see the fields) and never more than these caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Table cells in the whole document, GFM's filled-in empty cells included. The budget is
    /// the document's length in bytes plus 4096 (a table written out cell by cell never needs
    /// more), up to this cap.
    pub table_cells: usize,
    /// Nodes and edges of all the document's diagrams together: each gets a comment field. The
    /// budget is a quarter of the document's length plus 4096, up to this cap.
    pub diagram_parts: usize,
    /// Bytes of component markup. The budget is 64 times the document's length plus 1 MiB, up
    /// to this cap (256 MiB by default; `passback serve` sets 32 MiB); the components past it
    /// show as their source, with a warning.
    pub output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            table_cells: 250_000,
            diagram_parts: 20_000,
            output_bytes: 256 << 20,
        }
    }
}

impl Limits {
    /// Limits with these caps.
    pub fn new(table_cells: usize, diagram_parts: usize, output_bytes: usize) -> Self {
        Limits {
            table_cells,
            diagram_parts,
            output_bytes,
        }
    }

    /// The table-cell budget of a document of `len` bytes.
    pub(crate) fn table_cells_for(&self, len: usize) -> usize {
        len.saturating_add(4096).min(self.table_cells)
    }

    /// The diagram-part budget of a document of `len` bytes.
    pub(crate) fn diagram_parts_for(&self, len: usize) -> usize {
        (len / 4).saturating_add(4096).min(self.diagram_parts)
    }

    /// The component-markup budget of a document of `len` bytes.
    pub(crate) fn output_bytes_for(&self, len: usize) -> usize {
        len.saturating_mul(64)
            .saturating_add(1 << 20)
            .min(self.output_bytes)
    }
}

struct Scope {
    limits: Limits,
    cancel: Option<Arc<AtomicBool>>,
}

thread_local! {
    static SCOPE: RefCell<Option<Scope>> = const { RefCell::new(None) };
}

/// Runs `work` on this thread with `limits` in force and `cancel` as its cancellation flag:
/// once the flag is set, rendering stops at the next block and its result is not cached.
pub fn with_limits<T>(
    limits: Limits,
    cancel: Option<Arc<AtomicBool>>,
    work: impl FnOnce() -> T,
) -> T {
    struct Restore(Option<Scope>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            SCOPE.with(|s| *s.borrow_mut() = previous);
        }
    }
    let previous = SCOPE.with(|s| s.borrow_mut().replace(Scope { limits, cancel }));
    let _restore = Restore(previous);
    work()
}

/// The limits in force on this thread.
pub(crate) fn limits() -> Limits {
    SCOPE.with(|s| {
        s.borrow()
            .as_ref()
            .map_or_else(Limits::default, |s| s.limits)
    })
}

/// Whether the render running on this thread can be cancelled (it has a cancellation flag).
pub(crate) fn cancellable() -> bool {
    SCOPE.with(|s| s.borrow().as_ref().is_some_and(|s| s.cancel.is_some()))
}

/// Whether the render running on this thread has been cancelled.
pub fn cancelled() -> bool {
    SCOPE.with(|s| {
        s.borrow()
            .as_ref()
            .and_then(|s| s.cancel.as_ref())
            .is_some_and(|c| c.load(Ordering::Relaxed))
    })
}
