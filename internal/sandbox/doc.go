// Package sandbox confines the commands clada runs, so that a mistake in
// a spec, a person's approval or a pattern such as `python3 *` cannot
// reach outside the project: the kernel is the second wall behind the
// gate.
//
// A confined command may read every file except the credential stores of
// the home directory ([CredentialStores]); write only inside the project
// root (never in .git/ or .clada/), in its private TMPDIR, in the build
// caches its spec declares, in /dev/null and, on Linux, in /dev/shm
// (POSIX semaphores: Python's multiprocessing); and use the network only
// when its spec grants it. [Sandbox.Start] starts an *exec.Cmd that way
// and leaves everything else about it (process group, environment,
// standard streams, timeout) to the caller. The [Mode] decides what
// happens where the machine cannot confine: auto runs unconfined and
// says so, required refuses, off never confines.
//
// # Linux
//
// Landlock restricts files (and, from ABI 4, TCP ports; from ABI 6,
// signals and abstract Unix sockets to the command's own processes), a
// seccomp filter refuses sockets other than AF_UNIX without the network,
// io_uring always, the setuid and setgid bits in every mode a command
// gives (chmod, and the calls that create files: see seccompProgram), and
// tracing, reading the memory of or signalling clada's own process and
// the thread that starts commands (which shares their Landlock domain). Both need no privilege, no setuid helper and no
// cgo (the Landlock system calls are made through golang.org/x/sys/unix;
// go-landlock was not taken because its API restricts every thread of the
// process, through libpsx, which turns the binary into a cgo program
// wherever a C compiler is installed, while clada must keep writing
// .clada/; its low-level package wraps the same system calls).
//
// Go cannot run code between fork and exec, but a process inherits the
// Landlock domain, seccomp filter, no_new_privs flag and mount namespace
// of the thread that forks it. So a goroutine locks itself to its OS
// thread (and never unlocks it), confines that thread, and starts
// commands from it; no other goroutine ever runs on it, and clada's other
// threads stay free. When the command's TMPDIR lies in [Sandbox.TempRoot],
// as clada's runner makes it, that thread is a launcher kept for every
// later command with the same grants (network, repository, caches), so a
// confined command costs a fork and exec like an unconfined one; a
// launcher is rebuilt when what its rules and mounts name changes (the
// root's entries, .git, .clada, the caches). Otherwise the thread starts
// one command and dies. Either way no helper process is started per
// command, and no TMPDIR is granted but the commands' own: the TempRoot
// holds only them (so commands of one clada may see each other's).
//
// .git and .clada must stay read-only inside a writable root, which
// Landlock cannot express (its rules grant whole trees). Where user
// namespaces work, clada runs itself once in a user and mount namespace
// of its own ([Main], [RunInNamespace]); there each command's thread
// gets a private mount namespace in which .git and .clada are bind-mounted
// read-only (Landlock then forbids unmounting them). Elsewhere each
// top-level entry of the root except .git and .clada is granted, so a
// command cannot create or remove entries at the top of the project.
//
// A command held to clada's proxy ([Command.Proxy]) is held there by
// Landlock's TCP port rule, which knows ports, not addresses (another
// machine or loopback address on the proxy's port number stays
// reachable). In clada's user namespace its thread also unshares a
// network namespace, brings lo up and listens on 127.0.0.1 at the
// proxy's port there ([Command.ProxyServe]); clada's proxy accepts on that
// socket from its own threads, and the command reaches nothing else. Such
// a thread serves one command: the namespace holds that command's
// listener alone.
//
// # macOS and Windows
//
// On macOS the command runs under /usr/bin/sandbox-exec with a profile
// generated from the same grants (darwinProfile), with paths passed as
// parameters; it is tested as text here and runs only on macOS. Windows
// and other systems have no confinement: commands run unconfined and the
// [Outcome] says so.
//
// # After a command
//
// A [Snapshot] taken before each command and checked after it tells what
// the command changed in .git (its config, hooks, kind) and .clada, and
// undoes it where it can, confined or not. [Hint] recognises a failure
// that the confinement may have caused, so the report can say so and
// name the way out, which is a person's: `clada run --sandbox off`.
//
// The package never decides whether a command may run (that is the
// gateway's job), never changes its arguments or environment, and never
// starts a shell.
package sandbox
