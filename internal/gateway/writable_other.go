//go:build !unix

package gateway

import "os"

// writable reports whether p may be written; without access(2), a file or
// directory counts as writable unless its mode has no write bit.
func writable(p string) bool {
	fi, err := os.Stat(p)
	return err != nil || fi.Mode().Perm()&0o222 != 0
}
