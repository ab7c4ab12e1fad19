package attribution_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution/attributiontest"
	"github.com/cordon-ir/cordon/evidence"
)

// The evidence the tests read, through the one loader the packages below
// incident share (attributiontest).

var consoleFixture = attributiontest.ConsoleFixture

func loadSample(t *testing.T, name string) []evidence.Event { return attributiontest.Sample(t, name) }

func attributedStore(t *testing.T, paths ...string) evidence.Store {
	return attributiontest.AttributedStore(t, paths...)
}

// writeFile writes data to name in a fresh temporary folder and returns
// its path.
func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
