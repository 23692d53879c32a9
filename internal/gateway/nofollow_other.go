//go:build !unix

package gateway

import "io/fs"

// noFollow is 0 where there is no O_NOFOLLOW; the file was resolved when
// it was decided.
const noFollow = 0

// linkCount returns 1: hard-link counts are not checked on this system.
func linkCount(fs.FileInfo) uint64 { return 1 }
