//go:build linux || darwin

package sandbox

// testNoLandlock is the environment switch with which the end-to-end
// tests simulate a kernel without Landlock; testNoNamespaces simulates a
// machine where user namespaces are not allowed; testLandlockABI (a
// number) an older Landlock, whose ABI is at most that number (3: no TCP
// rules, as Linux 5.13 to 6.6). None ever widens what a command may do
// beyond what ModeAuto does on such a machine.
const (
	testNoLandlock   = "CLADA_SANDBOX_TEST_NO_LANDLOCK"
	testNoNamespaces = "CLADA_SANDBOX_TEST_NO_NAMESPACES"
	testLandlockABI  = "CLADA_SANDBOX_TEST_LANDLOCK_ABI"
)
