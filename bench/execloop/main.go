// Command execloop runs `cat FILE` N times with a bare exec.Command and
// pipes, nothing else: the floor under `clada run` of N cat blocks, used by
// bench/run.sh to show how much of the bash-loop ratio any Go program
// that starts each command with os/exec must pay.
//
//	execloop N FILE
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
)

func main() {
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: execloop N FILE")
		os.Exit(2)
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for range n {
		var out, errb bytes.Buffer
		c := exec.Command(cat, os.Args[2])
		c.Stdout, c.Stderr = &out, &errb
		if err := c.Run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
