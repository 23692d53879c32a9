package specs

import (
	"os"
	"testing"

	"github.com/clada/clada/internal/testtmp"
)

// TestMain runs the tests in a TMPDIR of their own, where ext4 creates
// their files fast (see internal/testtmp).
func TestMain(m *testing.M) { os.Exit(testtmp.Run(m)) }
