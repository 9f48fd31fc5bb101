-- The lifecycle (contract §6.1): a document is open, closed by its sender, or expired by
-- time. A closed or expired document keeps its text and responses (readable by its sender)
-- until it is deleted, or until the sweep purges it once it has stopped taking responses for
-- longer than --closed-retention; purging leaves the tombstone 0001 describes.

ALTER TABLE documents ADD COLUMN closed_at bigint;                   -- set while closed
ALTER TABLE documents ADD COLUMN views bigint NOT NULL DEFAULT 0;    -- review page loads
ALTER TABLE documents ADD COLUMN last_response_at bigint;            -- the last received_at

UPDATE documents d SET last_response_at =
    (SELECT max(received_at) FROM responses r WHERE r.document_id = d.id);

CREATE INDEX documents_closed ON documents (closed_at)
    WHERE gone_at IS NULL AND closed_at IS NOT NULL;
