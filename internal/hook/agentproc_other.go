//go:build !linux

package hook

// FindAgentProcess is not available on this system (it reads Linux's
// /proc): ok is false, and [geminiHeadless] relies on the environment.
func FindAgentProcess(ppid int) (p AgentProcess, ok bool) { return p, false }
