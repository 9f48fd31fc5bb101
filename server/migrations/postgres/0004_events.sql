-- Events (contract §6.2): every stored response, close and expiry is a row here, written in
-- the same statement as the change, so none is lost. Every document has events (a key lists
-- its own with GET /v1/events); those of a document with a callback URL (its own, or its
-- key's) are also POSTed there, signed, by a delivery worker on some replica, which claims it
-- (FOR UPDATE SKIP LOCKED, then a lease in next_attempt_at) and keeps its delivery state
-- below. Events go with their document's row (ON DELETE CASCADE): when its tombstone is
-- forgotten after the retention period.
--
-- GET /v1/events lists in (tx, seq) order and only events whose transaction is older than
-- every transaction still running, so a cursor never skips an event that commits late.

ALTER TABLE keys ADD COLUMN webhook_secret text;             -- whsec_…: signs its deliveries
ALTER TABLE keys ADD COLUMN callback_url text;               -- for its documents without one
ALTER TABLE documents ADD COLUMN callback_url text;          -- POST /v1/documents "callback_url"
ALTER TABLE documents ADD COLUMN webhook_secret text;        -- for a document routed without a key
ALTER TABLE documents ADD COLUMN expiry_announced boolean NOT NULL DEFAULT false;
-- Documents that expired before events existed are not announced now, long after.
UPDATE documents SET expiry_announced = true
    WHERE expires_at <= (extract(epoch FROM clock_timestamp()) * 1000)::bigint;

CREATE TABLE events (
    seq             bigserial PRIMARY KEY,
    tx              bigint  NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
    id              text    NOT NULL UNIQUE DEFAULT ('evt_' || replace(gen_random_uuid()::text, '-', '')),
    document_id     text    NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    owner_key       text,
    type            text    NOT NULL,
    response_id     bigint,
    created_at      bigint  NOT NULL,
    deliver         boolean NOT NULL DEFAULT false,
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at bigint,
    delivered_at    bigint,
    last_status     integer,
    last_error      text
);

CREATE INDEX events_due ON events (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX events_owner ON events (owner_key, tx, seq) WHERE owner_key IS NOT NULL;
CREATE INDEX events_document ON events (document_id, seq);
