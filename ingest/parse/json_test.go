package parse

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Unmarshal reads what encoding/json reads, and fails where it fails: on
// every JSON line of the formats' real samples and the sample incidents
// (into a map of anything, which keeps every value, and into a struct of
// the kinds the parsers use), and on each line cut short or with a
// number put where a string is wanted.
func TestUnmarshalAsEncodingJSON(t *testing.T) {
	var files []string
	for _, g := range []string{"../testdata/formats/*/*", "../testdata/ledger/*", "../../sample-incidents/*/*.jsonl", "../../sample-incidents/*/*/*.jsonl"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	type probe struct {
		Process struct {
			Pid    int    `json:"pid"`
			Binary string `json:"binary"`
		} `json:"process"`
		Kind   string          `json:"kind"`
		Args   json.RawMessage `json:"args"`
		Output string          `json:"output"`
		Time   string          `json:"time"`
		Fields map[string]any  `json:"output_fields"`
	}
	lines := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // a directory
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 16<<20)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 || line[0] != '{' {
				continue
			}
			lines++
			for _, in := range [][]byte{line, line[:len(line)/2], bytes.Replace(line, []byte(`":"`), []byte(`":7,"x":"`), 1)} {
				var wantAny, gotAny any
				werr, gerr := json.Unmarshal(in, &wantAny), Unmarshal(in, &gotAny)
				if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(gotAny, wantAny) {
					t.Fatalf("%s:%d as any: %v, %v; want %v", f, n, gerr, gotAny != nil, werr)
				}
				var want, got probe
				werr, gerr = json.Unmarshal(in, &want), Unmarshal(in, &got)
				if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s:%d as a struct: %v %+v; want %v %+v", f, n, gerr, got, werr, want)
				}
			}
		}
	}
	if lines < 1000 {
		t.Fatalf("%d JSON lines read from %d files, want the samples' thousands", lines, len(files))
	}
}
