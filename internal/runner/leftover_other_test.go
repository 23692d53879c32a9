//go:build unix && !linux

package runner

import "testing"

// Without Linux there is no reaper: the tests that need it off run as
// they are.
const noReaperEnv = "CLADA_RUNNER_TEST_NO_REAPER"

func subreaperOnly() {}

func withoutReaper(*testing.T) bool { return true }
