//go:build unix

package gateway

import "syscall"

// noFollow makes opening a redirection's file fail when its last
// component is a symbolic link.
const noFollow = syscall.O_NOFOLLOW
