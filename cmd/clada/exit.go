package main

// Exit codes, as the README lists them. Scripts under testdata/script
// assert them.
const (
	exitOK       = 0 // every block allowed and, when run, exited 0
	exitFailed   = 1 // something was denied, not approved, skipped or failed
	exitUsage    = 2 // usage error, unreadable .clada/ file, or malformed CSL (then nothing runs)
	exitApproval = 3 // dry-run and check: nothing denied, but something needs approval
)

// exitError carries an exit code out of an action that already reported
// what happened.
type exitError int

func (e exitError) Error() string { return "exit" }
