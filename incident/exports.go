package incident

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ExportsDir is the folder of a workspace that the console writes
// reports and exports into: over SSH it is the only place a session may
// write, whatever name the user typed.
const ExportsDir = "exports"

// ErrExportName is a file name for the exports folder that is not a plain
// name (a path, "..", a hidden file).
var ErrExportName = errors.New("not a plain file name")

// CreateExport creates a new file in the workspace's exports folder:
// name is a plain file name (no folder), and an existing file is never
// overwritten (name-2.md, name-3.md follow). It returns the open file and
// its path; the caller closes it.
func (w *Workspace) CreateExport(name string) (*os.File, string, error) {
	if name == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") || strings.ContainsAny(name, `/\`) {
		return nil, "", fmt.Errorf("export %q: %w", name, ErrExportName)
	}
	dir := filepath.Join(w.Dir, ExportsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", fmt.Errorf("exports folder: %w", err)
	}
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; i < 1000; i++ {
		n := name
		if i > 1 {
			n = fmt.Sprintf("%s-%d%s", stem, i, ext)
		}
		path := filepath.Join(dir, n)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("export %s: %w", n, err)
		}
		return f, path, nil
	}
	return nil, "", fmt.Errorf("export %s: a thousand files of that name already", name)
}

// ExportName is the default name of an export written at t: what, then
// the UTC time to the second ("report-20261201T1021Z.md").
func ExportName(what, ext string, t time.Time) string {
	return what + "-" + t.UTC().Format("20060102T150405Z") + "." + ext
}
