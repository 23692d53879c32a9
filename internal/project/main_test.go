package project

import (
	"os"
	"testing"

	"github.com/clada/clada/internal/teststate"
)

// TestMain gives the tests a trust record of their own.
func TestMain(m *testing.M) { os.Exit(teststate.M(m).Run()) }
