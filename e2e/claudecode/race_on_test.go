//go:build race

package claudecode_test

// raceBuild: this test binary has the race detector. The suite then does
// not run: what it tests runs in other processes (claude, clada), built
// without it, and the plain `go test ./...` of .ci/run runs it once.
const raceBuild = true
