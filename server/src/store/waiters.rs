//! Waiting for responses: the long-polls waiting in this process, by document id, and how
//! storing or deleting wakes them.

use super::{StoreError, StoredResponse};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::Instant;

/// How a notification says a document was deleted, before its id (PostgreSQL: see
/// [`postgres`](super::postgres)).
pub(crate) const GONE_PREFIX: &str = "gone:";

/// The long-polls waiting in this process, by document id. Storing a response (here, or on
/// PostgreSQL anywhere: see [`postgres`](super::postgres)) wakes the ones waiting on its document, which then
/// read the store again.
#[derive(Default)]
pub(crate) struct Waiters {
    by_document: Mutex<HashMap<String, Weak<Waiting>>>,
    closed: AtomicBool,
}

/// The waits on one document: woken when a response is stored, ended when it is deleted.
#[derive(Default)]
pub(crate) struct Waiting {
    notify: Notify,
    gone: AtomicBool,
}

/// One wait's registration; dropping it forgets the document when no one else waits on it.
pub(crate) struct Subscription<'a> {
    waiters: &'a Waiters,
    id: String,
    notify: Arc<Waiting>,
}

impl Drop for Subscription<'_> {
    fn drop(&mut self) {
        let mut map = self.waiters.lock();
        // Only this subscription holds it: no one else waits on the document.
        if Arc::strong_count(&self.notify) == 1 {
            map.remove(&self.id);
        }
    }
}

impl Waiters {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Weak<Waiting>>> {
        self.by_document.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn subscribe(&self, id: &str) -> Subscription<'_> {
        let mut map = self.lock();
        let notify = match map.get(id).and_then(Weak::upgrade) {
            Some(n) => n,
            None => {
                let n = Arc::new(Waiting::default());
                map.insert(id.to_string(), Arc::downgrade(&n));
                n
            }
        };
        Subscription {
            waiters: self,
            id: id.to_string(),
            notify,
        }
    }

    /// Whether no one waits.
    pub fn is_empty(&self) -> bool {
        self.lock().values().all(|w| w.strong_count() == 0)
    }

    /// A response to `id` was stored: wake its waits.
    pub fn notify(&self, id: &str) {
        let notify = self.lock().get(id).and_then(Weak::upgrade);
        if let Some(n) = notify {
            n.notify.notify_waiters();
        }
    }

    /// The document `id` was deleted or closed: nothing more will come to it, so its waits end
    /// now, and the front end reads the document again to answer (410 when it is gone, the
    /// closed document's list otherwise).
    pub fn bury(&self, id: &str) {
        let notify = self.lock().get(id).and_then(Weak::upgrade);
        if let Some(n) = notify {
            n.gone.store(true, Ordering::SeqCst);
            n.notify.notify_waiters();
        }
    }

    /// A notification's payload: a document id (a response to it was stored) or
    /// [`GONE_PREFIX`] and an id (it was deleted or closed).
    pub fn announced(&self, payload: &str) {
        match payload.strip_prefix(GONE_PREFIX) {
            Some(id) => self.bury(id),
            None => self.notify(payload),
        }
    }

    /// Wakes every wait (they read the store again): after a lost connection, notifications
    /// may have been missed.
    pub fn notify_all(&self) {
        let all: Vec<Arc<Waiting>> = self.lock().values().filter_map(Weak::upgrade).collect();
        for n in all {
            n.notify.notify_waiters();
        }
    }

    /// Ends every wait now, and every later one at once.
    pub fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.notify_all();
    }

    /// Waits for responses to `id` after `since`, reading them with `read`: at once, again
    /// whenever a response to `id` is announced, and every `recheck` in any case (a store shared
    /// with another process may announce nothing here), until there are some or `timeout`
    /// passes.
    pub async fn wait<F>(
        &self,
        id: &str,
        timeout: Duration,
        recheck: Duration,
        mut read: impl FnMut() -> F,
    ) -> Result<Vec<StoredResponse>, StoreError>
    where
        F: Future<Output = Result<Vec<StoredResponse>, StoreError>>,
    {
        let deadline = Instant::now() + timeout;
        let subscription = self.subscribe(id);
        loop {
            // Registered before the read, so an announcement made during it is not lost.
            let announced = subscription.notify.notify.notified();
            tokio::pin!(announced);
            announced.as_mut().enable();
            // Deleted: nothing more will come; the caller finds it gone.
            if subscription.notify.gone.load(Ordering::SeqCst) {
                return Ok(Vec::new());
            }
            let found = read().await?;
            if !found.is_empty() || Instant::now() >= deadline || self.closed.load(Ordering::SeqCst)
            {
                return Ok(found);
            }
            let next = (Instant::now() + recheck).min(deadline);
            tokio::select! {
                () = &mut announced => {}
                () = tokio::time::sleep_until(next) => {}
            }
        }
    }
}
