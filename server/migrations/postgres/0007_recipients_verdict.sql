-- Recipients and a verdict (contract §6.2). A document may name recipients, each with a review
-- link of their own: only the blake3 hash of the link's secret is kept, beside the name, the
-- email address if given, and when the link was first opened and last answered. A document may
-- ask for a verdict: its choices are kept as a JSON array of labels; each response keeps the
-- label chosen and the name of the recipient whose link it came through. Names, emails, labels
-- and verdicts are sealed at rest like the other text (store/sealed.rs). Deleting or purging a
-- document deletes its recipients with its responses.

CREATE TABLE recipients (
    document_id  text   NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    seq          bigint NOT NULL,              -- 1, 2, … in the order the sender listed them
    secret_hash  bytea  NOT NULL,              -- blake3 of the link's secret (32 bytes)
    name         text   NOT NULL,
    email        text,
    opened_at    bigint,                       -- first view of the page through the link
    answered_at  bigint,                       -- last response through the link
    PRIMARY KEY (document_id, seq)
);

CREATE UNIQUE INDEX recipients_secret ON recipients (document_id, secret_hash);

ALTER TABLE documents ADD COLUMN verdict_choices text; -- JSON array of labels; NULL: none asked
ALTER TABLE responses ADD COLUMN recipient_seq bigint;
ALTER TABLE responses ADD COLUMN recipient text;      -- the recipient's name, as routed
ALTER TABLE responses ADD COLUMN verdict text;        -- the label chosen
