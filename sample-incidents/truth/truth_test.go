package truth

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// scenarios are the folders under sample-incidents that hold a truth.yaml.
func scenarios(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "*", "truth.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, p := range paths {
		dirs = append(dirs, filepath.Dir(p))
	}
	if len(dirs) < 5 {
		t.Fatalf("only %d scenarios with a truth.yaml: %v", len(dirs), dirs)
	}
	return dirs
}

// evidence reads the proxy and sensor files of a scenario: name -> lines.
func evidence(t *testing.T, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, sub := range []string{"proxy", "sensor"} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
			var lines []string
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			out[filepath.ToSlash(rel)] = lines
			return sc.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// Every proxy and sensor record has a truth entry and every entry points at
// a record that exists.
func TestEveryRecordHasATruth(t *testing.T) {
	for _, dir := range scenarios(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			tr, err := Load(filepath.Join(dir, "truth.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if tr.Scenario != filepath.Base(dir) {
				t.Errorf("scenario %q in folder %s", tr.Scenario, dir)
			}
			files := evidence(t, dir)
			total := 0
			for name, lines := range files {
				if tr.Records[name] != len(lines) {
					t.Errorf("%s: %d records, truth.yaml says %d", name, len(lines), tr.Records[name])
				}
				total += len(lines)
				for i, l := range lines {
					origin := name + ":" + strconv.Itoa(i+1)
					if strings.HasSuffix(name, ".jsonl") && !json.Valid([]byte(l)) {
						t.Errorf("%s: not one JSON record", origin)
					}
					if _, ok := tr.Attribution[origin]; !ok {
						t.Errorf("%s: no truth entry", origin)
					}
				}
			}
			for name := range tr.Records {
				if _, ok := files[name]; !ok {
					t.Errorf("truth.yaml counts %s, which does not exist", name)
				}
			}
			for origin := range tr.Attribution {
				i := strings.LastIndexByte(origin, ':')
				n, err := strconv.Atoi(origin[i+1:])
				if i < 0 || err != nil || n < 1 || n > len(files[origin[:i]]) {
					t.Errorf("truth entry %s points at no record", origin)
				}
			}
			if len(tr.Attribution) != total {
				t.Errorf("%d truth entries for %d records", len(tr.Attribution), total)
			}
		})
	}
}

// The truth agrees with itself and with the evidence it describes: agents
// exist, benign and flagged agents partition the sessions, and a record
// attributed by container or source IP carries that agent's key.
func TestTruthIsConsistent(t *testing.T) {
	detectors := map[string]bool{}
	for _, d := range Detectors {
		detectors[d] = true
	}
	for _, dir := range scenarios(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			tr, err := Load(filepath.Join(dir, "truth.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			keys := map[string][]string{} // agent -> its IPs and full container ids
			for _, s := range tr.Sessions {
				if s.Agent == "" || len(s.Container) != 64 || s.IP == "" || s.Start.IsZero() || !s.End.After(s.Start) || len(s.Credentials) == 0 {
					t.Errorf("incomplete session %+v", s)
				}
				keys[s.Agent] = append(keys[s.Agent], s.IP, s.Container)
			}
			flagged := map[string]bool{}
			for _, f := range tr.Findings {
				flagged[f.Agent] = true
				if !detectors[f.Detector] || keys[f.Agent] == nil || f.To.Before(f.From) ||
					(f.MinSeverity != "medium" && f.MinSeverity != "high" && f.MinSeverity != "critical") {
					t.Errorf("bad finding %+v", f)
				}
			}
			for _, a := range tr.Benign {
				if flagged[a] || keys[a] == nil {
					t.Errorf("benign agent %s is flagged or has no session", a)
				}
			}
			for _, a := range tr.Agents() {
				if !flagged[a] && !tr.IsBenign(a) {
					t.Errorf("agent %s is neither flagged nor benign", a)
				}
			}
			files := evidence(t, dir)
			origins := make([]string, 0, len(tr.Attribution))
			for o := range tr.Attribution {
				origins = append(origins, o)
			}
			sort.Strings(origins)
			for _, o := range origins {
				r := tr.Attribution[o]
				for _, a := range []string{r.Agent, r.CredentialOwner, r.UsedBy, r.SandboxAgent} {
					if a != "" && keys[a] == nil {
						t.Errorf("%s: unknown agent %s", o, a)
					}
				}
				if (r.Agent == "") == (r.ViaExpected != "") || r.Actor != "" && r.Agent != "" {
					t.Errorf("%s: agent %q with via_expected %q, actor %q", o, r.Agent, r.ViaExpected, r.Actor)
				}
				i := strings.LastIndexByte(o, ':')
				n, _ := strconv.Atoi(o[i+1:])
				lines := files[o[:i]]
				if n < 1 || n > len(lines) {
					continue // reported by TestEveryRecordHasATruth
				}
				line := lines[n-1]
				switch r.ViaExpected {
				case "container", "src_ip", "none":
				default:
					if r.Agent != "" {
						t.Errorf("%s: via_expected %q", o, r.ViaExpected)
					}
					continue
				}
				found := false
				for k, key := range keys[r.Agent] {
					if k%2 == 0 && r.ViaExpected == "src_ip" && strings.Contains(line, key) ||
						k%2 == 1 && r.ViaExpected != "src_ip" && strings.Contains(line, key[:12]) {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: %s's %s is not in the record", o, r.Agent, r.ViaExpected)
				}
			}
		})
	}
}

// A scenario built to tempt false positives expects no finding at all.
func TestBusyBenignHasNoFindings(t *testing.T) {
	tr, err := Load(filepath.Join("..", "busy-benign", "truth.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Findings) != 0 || len(tr.Benign) != len(tr.Agents()) || len(tr.Benign) < 3 {
		t.Errorf("findings %v, benign %v of %v", tr.Findings, tr.Benign, tr.Agents())
	}
}

func TestParseRejectsMalformed(t *testing.T) {
	for _, doc := range []string{
		"scenario: x\nscenario: y\n",
		"attribution:\n  \"a:1\": {\"agent\": \"\"}\n  \"a:1\": {\"agent\": \"\"}\n",
		"sessions:\n  - {\"agent\": \n",
		"  - {}\n",
		"benign: [\"a\"]\nunknown: 1\n",
	} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("accepted %q", doc)
		}
	}
}
