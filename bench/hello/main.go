// Command hello is the reference for `clada check`'s whole-process time:
// the smallest Go program that starts, prints a line and exits, built by
// bench/run.sh with the same toolchain and flags as clada.
package main

import (
	"fmt"
	"os"
)

func main() { fmt.Fprintln(os.Stdout, "hello, world") }
