package parser

// Rule is the stable machine code of a refusal. Rule codes appear in JSON
// reports, so they never change.
type Rule string

// DeniedError reports a RUN body that is valid CSL but that clada refuses
// to turn into an argv, because a shell would have to interpret it.
type DeniedError struct {
	Rule   Rule   // stable code, e.g. RuleExpansion
	Word   string // the offending word or operator as written; "" when the whole command is refused
	Line   int    // 1-based line within the body, 0 when unknown
	Col    int    // 1-based column within the body, 0 when unknown
	Reason string // what is wrong: "$HOME is parameter expansion"
	Advice string // what the model should write instead
}

func (e *DeniedError) Error() string { return e.Reason }

// RuleCode returns the stable rule code.
func (e *DeniedError) RuleCode() string { return string(e.Rule) }

// Hint returns the advice for the model.
func (e *DeniedError) Hint() string { return e.Advice }

// analyzeRun checks a RUN body as CSL.md §5 requires and, when it is one
// statement, turns it into argv. blockErr is a CSL block error message
// ("" when the body is valid CSL); denied is set when the body is valid
// CSL but not a plain simple command. At most one of blockErr, denied
// and argv is set.
func (p *Parser) analyzeRun(body string) (argv []string, denied *DeniedError, blockErr string) {
	panic("analyzeRun: being written in command.go")
}
