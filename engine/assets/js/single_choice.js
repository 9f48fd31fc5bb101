// Single choice (engine/src/components/single_choice.rs): one question, one pick. Its fields,
// export and widgets are a question set's (question.js).
register('single-choice', QUESTIONS);
