// Package stracetest runs a command under strace (Linux) and reports what
// it did beyond what clada checked: a file looked up outside the project
// that is not a system file every program opens, a write into .git/,
// .clada/ or outside the project, a program exec'd. The differential tests
// of the specs (internal/specs/strace_linux_test.go) and of the git table
// (internal/gitrules/strace_linux_test.go) use it. It never decides anything
// itself and is imported by tests only.
package stracetest
