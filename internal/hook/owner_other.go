//go:build !unix

package hook

import "io/fs"

// ownedByMe reports whether fi belongs to the person running clada; where
// files have no Unix owner (Windows), the per-user location decides.
func ownedByMe(fs.FileInfo) bool { return true }
