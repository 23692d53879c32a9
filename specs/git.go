package specs

// checkGit: TODO waits for package gitrules.
func (s *Set) checkGit(argv []string, dir string, r *Resolver) Verdict {
	return Verdict{Outcome: NoSpec}
}
