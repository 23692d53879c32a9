//go:build race

package agente2e

// race is whether this test binary was built with -race.
const race = true
