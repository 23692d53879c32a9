// Command clada is a shell-free command gateway: it reads RUN blocks that
// a model wrote, decides allow / ask / deny for each, asks the person at
// the terminal where needed, runs what is allowed without a shell and
// reports back.
package main

import "os"

func main() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) }
