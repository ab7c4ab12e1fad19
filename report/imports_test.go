package report_test

import (
	"go/build"
	"strings"
	"testing"
)

// TestReportReadsTheCase: the report reads the case through incident, never
// through the assistant, and nothing above it in the layering.
func TestReportReadsTheCase(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/cordon-ir/cordon/"
	for _, imp := range pkg.Imports {
		for _, banned := range []string{"assist", "tui", "serve", "drill", "cmd", "fleet"} {
			if imp == module+banned || strings.HasPrefix(imp, module+banned+"/") {
				t.Errorf("report imports %s", imp)
			}
		}
	}
}
