// Questionnaire (engine/src/components/questionnaire.rs): several questions of any mode. Its
// fields, export and widgets are a question set's (question.js).
register('questionnaire', QUESTIONS);
