//go:build linux && !amd64 && !arm64

package sandbox

import (
	"errors"

	"golang.org/x/net/bpf"
)

// seccompProgram has no architecture table here: no seccomp filter is
// installed, and Landlock alone confines commands (its TCP rules still
// keep the network off where the kernel has them).
func seccompProgram(bool, bool, int, int) ([]bpf.RawInstruction, bool, error) { return nil, false, nil }

func installSeccomp([]bpf.RawInstruction) error {
	return errors.New("no seccomp filter for this architecture")
}
