-- Sender keys (contract §6.1). A key is shown once, when it is made; only its blake3 hash is
-- kept. A revoked key keeps its row (and its name) so the documents it routed stay its own.
-- Documents routed with a key name it in owner_key; documents routed without one have none.

CREATE TABLE keys (
    id         text   PRIMARY KEY,               -- 128 random bits, base64url: what documents name
    name       text   NOT NULL UNIQUE,           -- the operator's name for it
    key_hash   bytea  NOT NULL UNIQUE,           -- blake3 of the key (32 bytes)
    created_at bigint NOT NULL,
    revoked_at bigint                            -- set by `passback keys revoke`
);

ALTER TABLE documents ADD COLUMN owner_key text REFERENCES keys (id);

-- A key's documents newest first (GET /v1/documents), and its documents of the last hour
-- (the per-key quota).
CREATE INDEX documents_owner ON documents (owner_key, created_at DESC, id DESC)
    WHERE owner_key IS NOT NULL;
