-- Revised documents (contract §6.2): PUT /v1/documents/{id} replaces a document's text with a
-- new revision. The documents row keeps the latest revision's text and hash, as before; each
-- revision it replaces moves here, so a form rendered from it can still be read and the
-- responses to it keep their text. A response records the revision it answered. Revisions go
-- with their document's text: deleted with it, purged with it, and with its row at the end.

ALTER TABLE documents ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;   -- the latest revision
ALTER TABLE documents ADD COLUMN revised_at INTEGER;                    -- when it was made
ALTER TABLE responses ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;   -- the revision answered

CREATE TABLE revisions (
    document_id TEXT    NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    revision    INTEGER NOT NULL,                -- 1, 2, …: every revision before the latest
    markdown    TEXT    NOT NULL,
    hash        TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,                -- when this revision was made
    PRIMARY KEY (document_id, revision)
);
