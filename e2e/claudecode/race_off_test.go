//go:build !race

package claudecode_test

const raceBuild = false
