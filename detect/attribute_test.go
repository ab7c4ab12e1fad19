package detect_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
)

type sink struct{ evs []evidence.Event }

func (s *sink) Event(ev evidence.Event) error { s.evs = append(s.evs, ev); return nil }
func (s *sink) Reject(parse.Reject) error     { return nil }

// loadSample parses every evidence file of a sample incident.
func loadSample(t *testing.T, name string) []evidence.Event {
	t.Helper()
	return loadFiles(t, filepath.Join("..", "sample-incidents", name))
}

// loadFiles parses every evidence file under paths (files or folders).
func loadFiles(t *testing.T, paths ...string) []evidence.Event {
	t.Helper()
	files, err := ingest.Expand(paths)
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReaderSize(fh, 512<<10)
		p, err := ingest.Sniff(br, ingest.Parsers())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ingest.Stream(br, f, p, ingest.Position{}, s, nil); err != nil {
			t.Fatal(err)
		}
		fh.Close()
	}
	return s.evs
}

// consoleFixture is the evidence the console's tests open (two agents,
// with Squid, Falco and Tetragon records of the same sandboxes).
var consoleFixture = filepath.Join("..", "incident", "testdata", "console")

// attributedStore parses the evidence under paths, attributes it as
// ingest does and indexes it in a store in t.TempDir().
func attributedStore(t *testing.T, paths ...string) evidence.Store {
	t.Helper()
	evs := loadFiles(t, paths...)
	detect.AttributeAll(evs)
	return indexed(t, evs)
}

// indexed indexes events in a store in t.TempDir(), closed at cleanup.
func indexed(t *testing.T, evs []evidence.Event) evidence.Store {
	t.Helper()
	st, err := evidence.Open(filepath.Join(t.TempDir(), "index"), evidence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Index(context.Background(), evs, nil); err != nil {
		t.Fatal(err)
	}
	return st
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

// The egress sample reuses 10.0.3.7: agent-7's until its session is killed
// (and, with no new binding, for the line logged a second later), agent-3's
// from 11:05:12.
func TestAttributionFollowsIPReuse(t *testing.T) {
	evs := loadSample(t, "egress-probe-exfil")
	id := detect.NewIdentity(evs)
	reuse := at("2026-07-21T11:05:12Z")
	n := 0
	for i := range evs {
		ev := &evs[i]
		if ev.Format != "squid" || ev.SrcIP != "10.0.3.7" {
			continue
		}
		n++
		a := id.Attribute(ev)
		want := "agent-7"
		if !ev.Time.Before(reuse) {
			want = "agent-3"
		}
		if a.Agent != want {
			t.Errorf("%s %s: attributed to %q via %q %v, want %s", ev.Origin, ev.Time.Format(time.TimeOnly), a.Agent, a.Via, a.Candidates, want)
		}
	}
	if n < 20 {
		t.Fatalf("only %d squid lines from 10.0.3.7", n)
	}
}

func TestContainerPrefixesAndAmbiguity(t *testing.T) {
	t0 := at("2026-07-21T10:00:00Z")
	start := func(agent, sess, ip, ctr string, at time.Time) evidence.Event {
		return evidence.Event{Time: at, Source: evidence.SourceLedger, Kind: evidence.KindSessionStart, Agent: agent, Session: sess, SrcIP: ip, Container: ctr}
	}
	id := detect.NewIdentity([]evidence.Event{
		start("agent-1", "s-1", "10.0.0.1", "3f2a9c1d7e88", t0),
		start("agent-2", "s-2", "10.0.0.2", "containerd://aaaabbbbccccddddeeeeffff0000111122223333444455556666777788889999", t0),
		{Time: t0.Add(time.Hour), Source: evidence.SourceLedger, Kind: evidence.KindSessionEnd, Agent: "agent-1", Session: "s-1"},
	})
	cases := []struct {
		name  string
		ev    evidence.Event
		agent string
		via   string
	}{
		{"full id matches a short binding", evidence.Event{Container: "3f2a9c1d7e88ebbaadb4bcfadc2e6565cf94d0e1a6d7d618ae0fcc337ff6c0a2"}, "agent-1", detect.ViaContainer},
		{"short id matches a full binding", evidence.Event{Container: "AAAABBBBCCCC"}, "agent-2", detect.ViaContainer},
		{"ip", evidence.Event{SrcIP: "10.0.0.2"}, "agent-2", detect.ViaIP},
		{"container of one, ip of the other", evidence.Event{Container: "3f2a9c1d7e88", SrcIP: "10.0.0.2"}, "", detect.ViaAmbiguous},
		{"unknown ip", evidence.Event{SrcIP: "192.0.2.1"}, "", ""},
		{"too short a prefix", evidence.Event{Container: "3f2a"}, "", ""},
	}
	for _, c := range cases {
		c.ev.Time, c.ev.Source = t0.Add(time.Minute), evidence.SourceProxy
		a := id.Attribute(&c.ev)
		if a.Agent != c.agent || a.Via != c.via {
			t.Errorf("%s: %q via %q (%v), want %q via %q", c.name, a.Agent, a.Via, a.Candidates, c.agent, c.via)
		}
	}
	after := evidence.Event{Time: t0.Add(2 * time.Hour), Source: evidence.SourceSensor, Container: "3f2a9c1d7e88"}
	if a := id.Attribute(&after); a.Agent != "agent-1" || !a.AfterEnd {
		t.Errorf("after session end: %+v", a)
	}
}
