-- Events (contract §6.2): every stored response, close and expiry is a row here, written in
-- the same transaction as the change, so none is lost. Every document has events (a key
-- lists its own with GET /v1/events); those of a document with a callback URL (its own, or
-- its key's) are also POSTed there, signed, by the server's delivery worker, which keeps each
-- one's delivery state below. Events go with their document's row (ON DELETE CASCADE): when
-- its tombstone is forgotten after the retention period.

ALTER TABLE keys ADD COLUMN webhook_secret TEXT;             -- whsec_…: signs its deliveries
ALTER TABLE keys ADD COLUMN callback_url TEXT;               -- for its documents without one
ALTER TABLE documents ADD COLUMN callback_url TEXT;          -- POST /v1/documents "callback_url"
ALTER TABLE documents ADD COLUMN webhook_secret TEXT;        -- for a document routed without a key
ALTER TABLE documents ADD COLUMN expiry_announced INTEGER NOT NULL DEFAULT 0;
-- Documents that expired before events existed are not announced now, long after.
UPDATE documents SET expiry_announced = 1
    WHERE expires_at <= CAST(strftime('%s', 'now') AS INTEGER) * 1000;

CREATE TABLE events (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,   -- the order GET /v1/events lists them in
    id              TEXT    NOT NULL UNIQUE                -- evt_ and 128 random bits: webhook-id
                    DEFAULT ('evt_' || lower(hex(randomblob(16)))),
    document_id     TEXT    NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    owner_key       TEXT,                                -- the document's key, if any
    type            TEXT    NOT NULL,                    -- response.created | document.closed | document.expired
    response_id     INTEGER,                             -- for response.created
    created_at      INTEGER NOT NULL,
    deliver         INTEGER NOT NULL DEFAULT 0,          -- 1: a callback URL was set when it was made
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,                             -- NULL: nothing (more) to deliver
    delivered_at    INTEGER,
    last_status     INTEGER,                             -- the receiver's last HTTP status
    last_error      TEXT
);

CREATE INDEX events_due ON events (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX events_owner ON events (owner_key, seq) WHERE owner_key IS NOT NULL;
CREATE INDEX events_document ON events (document_id, seq);
