-- Idempotency-Key on POST /v1/documents (see docs/decisions.md): one row per key a sender used
-- in the last 24 hours. The key itself is not kept: key_hash is a blake3 hash of the sender's
-- scope (their key's id, or their address when they route without one) and the key, so one
-- sender's key never finds another's row. request_hash is the hash of the first request's body
-- and content type; a later request with the same key and another body is refused. The first
-- answer (its status and body, the document's token included) is kept sealed with a key derived
-- from the Idempotency-Key and the scope, so this table alone does not give the token away.
-- status and response are NULL while the first request is still being worked on.

CREATE TABLE idempotency_keys (
    key_hash     text    PRIMARY KEY,
    request_hash text    NOT NULL,
    created_at   bigint NOT NULL,
    status       integer,
    response     text
);

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
