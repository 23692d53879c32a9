// Package gateway is the pipeline for RUN blocks: it decides each command
// (allow, ask or deny) in the order docs/rules.md describes and runs a plan.
//
// [Gateway.Decide] applies, in order: the user's blocked patterns and the
// built-in hard blocks (deny); confinement of the dir attribute and of a
// path-like program (deny); the command specs and git rules (allow or
// deny; wrappers that run other programs are ask); everything else is
// ask. A simple wrapper (env, nice, timeout, time, stdbuf, nohup) is
// decided by the command it runs, decided as if it stood alone, and by its
// own words. A command that deletes or replaces existing files is an allow
// only when git can restore all of them (restore.go; git's state is read
// lazily, once per run and again after a command ran), else ask. Then the
// user's allowed patterns turn an ask into allow (consent.go): never a
// deny, and a prefix pattern only while the words its * stands for stay
// inside the project. Untrusted mode turns every allow into ask. The verdict carries the rule, the offending word, the
// reason and advice for the model, and what would run: the resolved
// program and final arguments (git hardened) and extra environment.
//
// [Gateway.Plan] decides every RUN block of every document before anything
// runs; a plan with any CSL error runs nothing. [Gateway.Execute] runs a
// valid plan in document order: a TASKS group stops at its first refused,
// declined or failed command, --stop-on-error stops everything, Ctrl-C
// (a cancelled context) stops the running command and skips the rest.
// Each block is decided again, on fresh symlink resolution, once a command
// has run, because a command may have changed the file system.
//
// [RunVerdict] runs each command confined by package sandbox to what its
// verdict grants (Verdict.Grants: the network and build caches of its
// spec, or clada's built-in caches of go, cargo, npm …; Repository for a
// git command a person approved that changes the repository), with the
// integrity check of .git and .clada around it, and says how it ran
// (Confinement) for the report.
//
// gateway never starts a shell: commands run through package runner with
// the argv the parser produced, and nothing here expands or joins words.
package gateway
