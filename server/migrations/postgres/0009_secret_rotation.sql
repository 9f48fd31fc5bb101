-- Two changes: the secret rotation's grace period, and stored responses announced after their
-- commit (below).

-- A rotated webhook secret keeps signing beside the new one for a grace period
-- (`passback keys rotate-secret NAME --grace TIME`, 24 hours by default), so a receiver that
-- has not yet switched to the new secret still verifies every delivery. previous_webhook_secret
-- is the secret before the last rotation; previous_secret_until is when it stops signing (Unix
-- milliseconds). Both are NULL for a key never rotated.

ALTER TABLE keys ADD COLUMN previous_webhook_secret text;
ALTER TABLE keys ADD COLUMN previous_secret_until bigint;

-- Stored responses are announced on passback_responses by the server after the insert commits
-- (several in one statement), no longer by a trigger inside the inserting transaction:
-- PostgreSQL serializes the commits of transactions that NOTIFY, which held every replica's
-- submissions to one WAL flush each.
DROP TRIGGER responses_notify ON responses;
DROP FUNCTION passback_response_stored();
