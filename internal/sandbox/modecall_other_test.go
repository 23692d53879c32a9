//go:build linux && !amd64

package sandbox

// legacyModeCalls is empty: arm64 and the newer architectures have only
// the *at calls.
var legacyModeCalls = map[string]uintptr{}
