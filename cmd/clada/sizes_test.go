package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdMaxBytes checks the size of a file, or of the last command's stdout
// or stderr: `maxbytes stdout 32768` fails when stdout is larger than
// 32768 bytes (`! maxbytes` when it is not).
func cmdMaxBytes(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: maxbytes stdout|stderr|FILE N")
	}
	var limit int
	if _, err := fmt.Sscan(args[1], &limit); err != nil {
		ts.Fatalf("bad size %q", args[1])
	}
	size := len(ts.ReadFile(args[0]))
	if over := size > limit; over != neg {
		ts.Fatalf("%s has %d bytes, limit %d", args[0], size, limit)
	}
	ts.Logf("%s has %d bytes", args[0], size)
}

// cmdHasPrefix checks that a file starts with a string: `hasprefix FILE
// TEXT` (Go escapes such as \n are read in TEXT). The file is read only up
// to TEXT's length, so it may be large.
func cmdHasPrefix(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: hasprefix FILE TEXT")
	}
	want := strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(args[1])
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	buf := make([]byte, len(want))
	n, _ := io.ReadFull(f, buf)
	if got := string(buf[:n]) == want; got == neg {
		ts.Fatalf("%s starts with %q, want %s%q", args[0], buf[:n], map[bool]string{true: "not "}[neg], want)
	}
}
