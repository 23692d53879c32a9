package gateway

// WithoutPatterns returns a gateway that decides as g does but with no
// allowed or blocked patterns: what the specs and rules alone decide,
// which `clada why` shows as the step before an allowed pattern turned
// an ask into allow. It changes nothing of g.
func (g *Gateway) WithoutPatterns() (*Gateway, error) {
	o := g.opts
	o.Commands = nil
	return New(o)
}
