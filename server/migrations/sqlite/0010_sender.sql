-- The sender's display name ("Dana from Finance"), given when routing: the review page's intro
-- names them. Cleaned as a recipient's name is, at most 200 characters, sealed at rest like the
-- other text (store/sealed.rs). A revision keeps it; deleting or purging the document clears it
-- with the text. NULL: no name was given.

ALTER TABLE documents ADD COLUMN sender TEXT;
