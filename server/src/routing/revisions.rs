//! Revising a routed document: validate the new text, warn of answers it leaves ambiguous, keep it as the latest; read an earlier revision.

use super::error::RoutingError;
use super::{Routing, carry};
use crate::admission::RenderSlots;
use crate::store::{self, Document, Revised};
use passback_engine::Options;
use serde_json::{Value, json};

/// Revisions one document may have (the routed one included).
pub const MAX_REVISIONS: u64 = 100;

/// A revision made by [`Routing::revise_checked`].
pub struct Revision {
    pub id: String,
    pub revision: u64,
    pub hash: String,
    /// The validation's warnings, then those about earlier answers.
    pub diagnostics: Value,
}

impl Revision {
    /// `{ id, revision, hash, diagnostics }`, as `PUT /v1/documents/{id}` answers it.
    pub fn record(&self) -> Value {
        json!({
            "id": self.id,
            "revision": self.revision,
            "hash": self.hash,
            "diagnostics": self.diagnostics,
        })
    }
}

impl Routing {
    /// Validates `src` in a render slot and, when it is valid, makes it the latest revision of
    /// `doc` (its owner checked already, see [`Routing::owned`]). The diagnostics add a warning
    /// for each component whose earlier answers the revision leaves without a place, or may
    /// put on another question.
    pub async fn revise_checked(
        &self,
        slots: &RenderSlots<'_>,
        doc: &Document,
        src: String,
    ) -> Result<Revision, RoutingError> {
        let (old, revision) = (doc.markdown.clone(), doc.revision);
        let (src, validation, hash, warnings) = slots
            .run(move || {
                let validation = passback_engine::validate(&src);
                let hash = passback_engine::content_hash(&src, &Options::default());
                let warnings = if validation.ok {
                    carry::warnings(&old, &src, revision)
                } else {
                    Vec::new()
                };
                (src, validation, hash, warnings)
            })
            .await?;
        let mut diagnostics = super::checked_diagnostics(&validation)?;
        if let Some(list) = diagnostics.as_array_mut() {
            list.extend(warnings);
        }
        let done = self
            .store
            .revise(&doc.id, src, hash.clone(), store::now(), MAX_REVISIONS)
            .await
            .map_err(RoutingError::store)?;
        self.answerable.forget(&doc.id);
        match done {
            Revised::Done(revision) => Ok(Revision {
                id: doc.id.clone(),
                revision,
                hash,
                diagnostics,
            }),
            Revised::Expired { expires_at } => Err(RoutingError::StatusFixed { expires_at }),
            Revised::Full => Err(RoutingError::Revisions { max: MAX_REVISIONS }),
            Revised::Gone => Err(RoutingError::Gone),
            Revised::Unknown => Err(RoutingError::Unknown { id: doc.id.clone() }),
        }
    }

    /// The text of revision `revision` of `id`, while the document is kept.
    pub async fn revision_text(
        &self,
        id: &str,
        revision: u64,
    ) -> Result<Option<String>, RoutingError> {
        if revision == 0 {
            return Ok(None);
        }
        self.store
            .revision(id, revision)
            .await
            .map(|found| found.map(|r| r.markdown))
            .map_err(RoutingError::store)
    }
}
