// Package runner runs one command that clada has already decided to allow,
// and captures what it prints.
//
// [Run] starts argv[0] with exec.Command and the arguments argv[1:] exactly as
// given. It never starts a shell, never expands arguments (no globs, no $VAR,
// no ~) and never joins argv into a string. A bare argv[0] is resolved with
// exec.LookPath; a name found relative to the current directory
// (exec.ErrDot) is refused.
//
// The command's standard input is the null device, so it reads EOF at once and
// can never read the CSL document that clada itself reads from stdin. Standard
// output and standard error are read separately, as streams, and passed on
// to the io.Writer sinks of [Config] in chunks of at most 32 KiB, up to
// [Config.MaxOutput] bytes together; Run holds no output itself. The first
// byte past the cap kills the command and marks the [Result] truncated;
// memory stays bounded however much the command prints and whatever the
// cap.
//
// On Unix the command runs in its own session and process group (Setsid), with no
// controlling terminal, so it can never read the terminal clada asks on. A timeout, a
// canceled context (clada cancels it on Ctrl-C; the command's group does not
// receive the terminal's SIGINT itself) or the output cap sends SIGKILL to
// the whole group, grandchildren included. When the command exits on its own,
// whatever it left running in its group is killed too. A process that leaves
// the group and session (setsid, daemon(3), a double fork) is out of the
// group kill's reach: on Linux, a program that called [EnableReaper] (clada
// and clada-mcp do) adopts it as the child subreaper and, when the command
// ends, however it ends, kills it and everything it started, sparing only
// what belongs to a command still running (see reap_linux.go for how that is
// told, and its limits). So nothing a command started outlives Run. Without
// the reaper (other systems), such a process goes on; if it holds the output
// pipes, Run stops reading after [Config.WaitDelay] and returns anyway. On
// Windows the command runs in a job object that is terminated instead (see
// proc_windows.go for its limits).
//
// Every command gets a private temporary directory, made under
// [Config.TempRoot] (default os.TempDir()) with mode 0700 and named by
// TMPDIR, TMP and TEMP in its environment. Run removes it, and everything
// the command or its children put there, once they are gone: after a normal
// exit, a kill at the timeout or the output cap, or a cancellation. A sort
// killed at its timeout leaves no spill files in the shared /tmp. (A
// process that escaped the group could recreate files there only by
// recreating the directory.)
//
// Because the group is not the terminal's foreground group, a command that
// reads /dev/tty to ask the person something is stopped (SIGTTIN) until the
// timeout kills it: it can never read keystrokes meant for clada's prompt.
//
// [Config.Start] lets the caller start the prepared command itself (the
// gateway starts it confined by package sandbox); everything else above
// holds whoever starts it.
//
// runner knows nothing about specs, models or approval: it takes argv and a
// [Config] and reports what happened as a [Result], telling apart "could not
// start", "exited with code N", "killed by a signal", "timed out", "truncated"
// and "canceled".
package runner
