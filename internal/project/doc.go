// Package project opens a clada project and holds what every way into
// clada shares: the project root (found as a person expects, from the
// working directory), .clada/config.toml, the live approvals in
// .clada/commands.toml, the command specs, and the policy that merges
// flags, configuration and the environment (CI) into how commands are
// decided and run. `clada run`, `clada check`, `clada mcp`, `clada hook`
// and `clada exec` all go through it, so they decide alike.
//
// A [Project] is safe for concurrent use and meant to live as long as the
// process: the specs are loaded once, and the approvals are re-read
// whenever another clada process changed commands.toml. A
// [gateway.Gateway] is not safe for concurrent use; it caches symlink
// resolution for one run. [Project.Gateway] makes a fresh one cheaply, so
// a resident process takes one per request.
//
// project never reads os.Args or the process's standard streams, and
// never exits the process.
package project
