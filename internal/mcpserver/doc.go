// Package mcpserver is `clada mcp` (the clada-mcp executable): the gate
// as a Model Context Protocol server, built on the official Go SDK. It
// serves four tools over one connection (stdio in clada):
//
//   - run: one command, parsed exactly as a CSL RUN body, decided by the
//     same gateway as `clada run`, asked about through the client
//     (elicitation) when it needs approval, and run without a shell. A
//     command that outlives background_after goes on as a background job.
//   - check: the decision for one command; nothing runs.
//   - output: a job's status and its output so far.
//   - kill: stops a job's whole process group, and what the job started
//     outside it (runner.EnableReaper).
//
// The project (specs, config, approvals) is opened once; every request
// takes its own gateway from it, so requests run concurrently. A question
// goes to the client as an elicitation with a fixed schema (an answer of
// yes, no, always or never); a client that cannot elicit gets a result
// saying that a person must approve the command and how. The server never
// opens the terminal: the agent's interface owns it.
//
// When the connection ends (the client closed stdin) or the server is
// stopped, every job's process group is killed and waited for before
// [Serve] returns: no command outlives the server. [Main] makes the
// server the child subreaper of its jobs (runner.EnableReaper), so what
// a job started in a session of its own is killed when the job ends,
// however it ends, too. If the server is killed with SIGKILL, none of
// this runs: its jobs and what they started are adopted by init and go
// on.
//
// [Serve] never reads os.Args or the process's standard streams; the
// caller passes the connection's reader and writer. [Main] is the
// clada-mcp executable around it.
package mcpserver
