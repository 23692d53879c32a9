// Package rules is clada's one vocabulary of rules: the stable code of
// every rule a verdict can carry ([Rule]), what each decides, what
// triggers it and what the model should do instead ([All]), and the one
// refusal type every stage returns ([Denied]). The parser, the specs,
// git's table and the gateway give these codes; docs/rules.md's table and
// `clada prompt` are built from [All], and a test (internal/gateway
// rules_test.go) fails when a code is defined outside this package, twice,
// or without its entry in All.
//
// rules decides nothing and imports nothing of clada: it only names.
package rules
