// Package guide writes the instructions a model needs to work through
// clada: how to write RUN blocks and the dir attribute, what clada refuses
// and what to write instead, what runs without asking in this project, and
// that everything else waits for a person. `clada prompt` prints them for
// the person to paste into the model's system prompt.
//
// The text is generated, never written by hand: the refusals come from
// [rules.All], the same list docs/rules.md is checked against, and the
// rest from the project's configuration ([FromProject]), so it cannot
// drift from what clada does. It stays under 60 lines.
//
// guide never runs or decides anything.
package guide
