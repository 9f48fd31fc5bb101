// Open question (engine/src/components/open_question.rs): answered in the reader's own words. Its
// fields, export and widgets are a question set's (question.js).
register('open-question', QUESTIONS);
