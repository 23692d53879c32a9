//go:build !linux

package runner

import "errors"

// EnableReaper returns errors.ErrUnsupported: only Linux has a child
// subreaper (see reap_linux.go). Here a command's process group (on
// Windows its job object) is all that is killed.
func EnableReaper() error { return errors.ErrUnsupported }

type reaped struct{}

func reapStart() func(pid int, tmp string) *reaped {
	return func(int, string) *reaped { return nil }
}

func reapEnd(*reaped) {}
