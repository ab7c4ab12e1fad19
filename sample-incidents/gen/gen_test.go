package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// files reads every file under root: relative path -> content.
func files(t *testing.T, root string, skip func(string) bool) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if skip(rel) {
			return nil
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Two runs give the same bytes, and those are the committed files: nothing
// in a scenario folder but its README is left over or edited by hand.
func TestGenerateIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if _, err := generate(dir); err != nil {
			t.Fatal(err)
		}
	}
	none := func(string) bool { return false }
	ga, gb := files(t, a, none), files(t, b, none)
	if len(ga) != len(gb) || len(ga) < 5*5 {
		t.Fatalf("%d and %d files generated", len(ga), len(gb))
	}
	for name, data := range ga {
		if !bytes.Equal(data, gb[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
	for _, sc := range scenarios {
		// READMEs, drill scripts, drill answers and expected scorecards
		// are written by hand.
		committed := files(t, filepath.Join("..", sc.dir), func(rel string) bool {
			return rel == "README.md" || rel == "drill.yaml" || rel == "expected-scorecard.yaml" || strings.HasPrefix(rel, "drill-answers/")
		})
		for name, data := range committed {
			g, ok := ga[sc.dir+"/"+name]
			switch {
			case !ok:
				t.Errorf("%s/%s is not generated", sc.dir, name)
			case !bytes.Equal(data, g):
				t.Errorf("%s/%s differs from the generator's output: run go run ./sample-incidents/gen", sc.dir, name)
			}
		}
		for name := range ga {
			if rel, ok := strings.CutPrefix(name, sc.dir+"/"); ok && committed[rel] == nil {
				t.Errorf("%s is generated but not committed", name)
			}
		}
	}
}

// Every proxy and sensor line is written with its ground truth; a writer
// that forgets it fails the run instead of writing a truth-less line.
func TestWriteRefusesALineWithoutTruth(t *testing.T) {
	w := &world{files: map[string][]line{}}
	w.emit("proxy/access.log", w.day, "x", who{})
	if _, err := w.write(t.TempDir(), "x"); err == nil {
		t.Error("a proxy line without ground truth was written")
	}
	w = &world{files: map[string][]line{}}
	w.emit("ledger.jsonl", w.day, "{}", nobody("ledger"))
	if _, err := w.write(t.TempDir(), "x"); err == nil {
		t.Error("a ledger line with ground truth was written")
	}
}
