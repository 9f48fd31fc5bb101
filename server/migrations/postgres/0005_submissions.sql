-- One response per sent form (contract §6): the review page's form carries a random submission
-- id written by the server when it renders the form (a JSON client may send its own). Only its
-- blake3 hash is kept, base64url; it also opens the reader's receipt page, which shows their
-- answers. A second post of the same form (a double click, a resend) finds the first response
-- instead of storing another.

ALTER TABLE responses ADD COLUMN submission_hash TEXT;

CREATE UNIQUE INDEX responses_submission ON responses (document_id, submission_hash)
    WHERE submission_hash IS NOT NULL;
