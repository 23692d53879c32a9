//go:build !unix

package gateway

// noFollow is 0 where there is no O_NOFOLLOW; the file was resolved when
// it was decided.
const noFollow = 0
