-- The lifecycle (contract §6.1): a document is open, closed by its sender, or expired by
-- time. A closed or expired document keeps its text and responses (readable by its sender)
-- until it is deleted, or until the sweep purges it once it has stopped taking responses for
-- longer than --closed-retention; purging leaves the tombstone 0001 describes.

ALTER TABLE documents ADD COLUMN closed_at INTEGER;                  -- set while closed
ALTER TABLE documents ADD COLUMN views INTEGER NOT NULL DEFAULT 0;   -- review page loads
ALTER TABLE documents ADD COLUMN last_response_at INTEGER;           -- the last received_at

UPDATE documents SET last_response_at =
    (SELECT max(received_at) FROM responses WHERE responses.document_id = documents.id);

CREATE INDEX documents_closed ON documents (closed_at)
    WHERE gone_at IS NULL AND closed_at IS NOT NULL;
