// passback enhancement script. Plain ES5-style JavaScript, no framework, no build step, no eval,
// no inline code: it runs under `script-src 'self'`. Every widget it touches already works as a
// plain HTML form; the script keeps that form's fields in step with what the reader does, so the
// form still posts the right state, and it builds the copy-back export in the browser from those
// same fields (a port of engine/src/answers.rs: decode the form as `from_form` does, then export
// as `export` does), so pages with no server (mdBook, saved HTML) export exactly what the engine
// would.
//
// The served script is the files of engine/assets/js joined in the order `SCRIPT_FILES` in
// engine/src/assets.rs gives, inside this one function; after this file comes `STRINGS`, the
// chrome strings of engine/src/html/i18n.rs for every language, written by the engine.
(function () {
'use strict';

