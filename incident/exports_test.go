package incident

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCreateExportStaysInTheExportsFolder(t *testing.T) {
	w := &Workspace{Dir: t.TempDir()}
	for _, bad := range []string{"../x.md", "/etc/passwd", "a/b.md", ".hidden", "", ".."} {
		if _, _, err := w.CreateExport(bad); !errors.Is(err, ErrExportName) {
			t.Errorf("CreateExport(%q): %v, want ErrExportName", bad, err)
		}
	}
	f, p1, err := w.CreateExport("report.md")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	f, p2, err := w.CreateExport("report.md")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if filepath.Dir(p1) != filepath.Join(w.Dir, ExportsDir) || filepath.Base(p2) != "report-2.md" {
		t.Errorf("paths %s, %s: want exports/report.md then exports/report-2.md", p1, p2)
	}
	if st, err := os.Stat(p1); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v (%v), want 0600", st.Mode(), err)
	}
}
