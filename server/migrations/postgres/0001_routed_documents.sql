-- Routed documents and the responses readers send back (contract §6).
-- Times are Unix milliseconds (UTC). A deleted or expired document keeps its row as a
-- tombstone (markdown NULL, gone_at set, responses removed) so its links answer 410, until
-- the retention period has passed since it went.

CREATE TABLE documents (
    id             text   PRIMARY KEY,           -- 128 random bits, base64url
    token_hash     bytea  NOT NULL,              -- blake3 of the bearer token (32 bytes)
    markdown       text,                         -- the document; NULL once gone
    hash           text   NOT NULL,              -- content hash, as POST /v1/render gives it
    created_at     bigint NOT NULL,
    expires_at     bigint NOT NULL,
    gone_at        bigint,                       -- set when deleted or expired
    response_count bigint NOT NULL DEFAULT 0     -- responses ever taken: the last response_id
);

CREATE INDEX documents_live_expiry ON documents (expires_at) WHERE gone_at IS NULL;
CREATE INDEX documents_gone ON documents (gone_at) WHERE gone_at IS NOT NULL;

CREATE TABLE responses (
    document_id      text   NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    seq              bigint NOT NULL,            -- the response_id: 1, 2, … per document
    received_at      bigint NOT NULL,
    reviewer         text,
    component_inputs json   NOT NULL,            -- answers keyed by block id (§4), as sent
    annotations      json   NOT NULL DEFAULT '[]', -- prose comments (§7)
    export           text   NOT NULL,            -- the Markdown export
    PRIMARY KEY (document_id, seq)
);

-- Every replica LISTENs on this channel: a long-poll on any of them wakes when a response is
-- stored through any other. The payload is the document id; it is sent when the insert commits.
CREATE FUNCTION passback_response_stored() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('passback_responses', NEW.document_id);
    RETURN NULL;
END
$$;

CREATE TRIGGER responses_notify AFTER INSERT ON responses
    FOR EACH ROW EXECUTE FUNCTION passback_response_stored();
