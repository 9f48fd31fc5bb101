// Multiple choice (engine/src/components/multi_choice.rs): one question, any number of picks. Its
// fields, export and widgets are a question set's (question.js).
register('multi-choice', QUESTIONS);
