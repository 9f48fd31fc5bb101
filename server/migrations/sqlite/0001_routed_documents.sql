-- Routed documents and the responses readers send back (contract §6).
-- Times are Unix milliseconds (UTC). A deleted or expired document keeps its row as a
-- tombstone (markdown NULL, gone_at set, responses removed) so its links answer 410, until
-- the retention period has passed since it went.

CREATE TABLE documents (
    id             TEXT    PRIMARY KEY,          -- 128 random bits, base64url
    token_hash     BLOB    NOT NULL,             -- blake3 of the bearer token (32 bytes)
    markdown       TEXT,                         -- the document; NULL once gone
    hash           TEXT    NOT NULL,             -- content hash, as POST /v1/render gives it
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL,
    gone_at        INTEGER,                      -- set when deleted or expired
    response_count INTEGER NOT NULL DEFAULT 0    -- responses ever taken: the last response_id
);

CREATE INDEX documents_live_expiry ON documents (expires_at) WHERE gone_at IS NULL;
CREATE INDEX documents_gone ON documents (gone_at) WHERE gone_at IS NOT NULL;

CREATE TABLE responses (
    document_id      TEXT    NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    seq              INTEGER NOT NULL,           -- the response_id: 1, 2, … per document
    received_at      INTEGER NOT NULL,
    reviewer         TEXT,
    component_inputs TEXT    NOT NULL,           -- JSON: answers keyed by block id (§4)
    annotations      TEXT    NOT NULL DEFAULT '[]', -- JSON: prose comments (§7)
    export           TEXT    NOT NULL,           -- the Markdown export
    PRIMARY KEY (document_id, seq)
);
