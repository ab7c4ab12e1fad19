package journal_test

import (
	"go/build"
	"strings"
	"testing"
)

// TestJournalIsBelowTheCase: the journal sits under incident in the
// layering; of cordon's packages it may use evidence and platform (the
// leaf that holds the OS's locks) at most, so that anything that records
// a case can depend on it without a cycle.
func TestJournalIsBelowTheCase(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/cordon-ir/cordon/"
	for _, imp := range pkg.Imports {
		if strings.HasPrefix(imp, module) && imp != module+"evidence" && imp != module+"platform" {
			t.Errorf("journal imports %s", imp)
		}
	}
}
