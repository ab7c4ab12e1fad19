package relay_test

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/ingest/relay"
)

type sink struct {
	events  []evidence.Event
	rejects []parse.Reject
}

func (s *sink) Event(ev evidence.Event) error { s.events = append(s.events, ev); return nil }
func (s *sink) Reject(r parse.Reject) error   { s.rejects = append(s.rejects, r); return nil }

func squidEvent() evidence.Event {
	return evidence.Event{
		ID: "dccf7662f1893313", Time: time.Date(2026, 11, 4, 10, 1, 15, 856e6, time.UTC), Source: evidence.SourceProxy,
		Format: "squid", Kind: evidence.KindNetRequest, SrcIP: "10.0.6.21", DstHost: "pypi.org", Decision: "allow",
		Raw:    "1793786475.856   3288 10.0.6.21 TCP_TUNNEL/200 86620 CONNECT pypi.org:443 px-s701 HIER_DIRECT/151.101.0.223 -",
		Origin: "/var/log/squid/access.log:1", Message: "CONNECT pypi.org:443 -> 200",
	}
}

// An event read through ingest's driver keeps the id, source, format, raw
// record and origin it was written with: a workspace that ingests a relay
// file holds the events the stream held.
func TestRelayedEventKeepsItsIdentity(t *testing.T) {
	want := squidEvent()
	line, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var s sink
	if _, err := ingest.Stream(strings.NewReader(string(line)+"\n"), "pull.jsonl", relay.New(), ingest.Position{}, &s, nil); err != nil {
		t.Fatal(err)
	}
	if len(s.events) != 1 || len(s.rejects) != 0 {
		t.Fatalf("%d events, %d rejects: %+v", len(s.events), len(s.rejects), s.rejects)
	}
	got := s.events[0]
	if got.ID != want.ID || got.Format != "squid" || got.Source != evidence.SourceProxy || got.Raw != want.Raw || got.Origin != want.Origin || !got.Time.Equal(want.Time) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// The relay format is sniffed from its fields and from nothing else: no
// other known format's record passes for it, and a relay line is not taken
// for a ledger record.
func TestRelaySniff(t *testing.T) {
	line, _ := json.Marshal(squidEvent())
	p, err := ingest.Sniff(bufioReader(string(line)+"\n"), ingest.Parsers())
	if err != nil || p.Format() != relay.Format {
		t.Fatalf("a relay line sniffed as %v (%v)", p, err)
	}
	for _, rec := range []string{
		`{"v":1,"ts":"2026-11-04T10:00:00Z","type":"tool_call","agent":"agent-7","session":"s-1"}`,
		`{"time":"2026-11-04T10:00:00Z","rule":"Read sensitive file","priority":"Warning","output":"x","output_fields":{}}`,
		`{"id":"dccf7662f1893313","time":"2026-11-04T10:00:00Z","kind":"net_request","source":"proxy","format":"cordon-event","raw":"x"}`,
		`{"id":"DCCF7662F1893313","time":"2026-11-04T10:00:00Z","kind":"net_request","source":"proxy","format":"squid","raw":"x"}`,
	} {
		if relay.New().Sniff([]byte(rec)) {
			t.Errorf("sniffed as a relay line: %s", rec)
		}
	}
}

// Whoever wrote the file chose every field: an event without what every
// event has, or claiming to be of the relay format itself, is rejected
// with its reason, and the file goes on.
func TestRelayRejectsWhatIsNotAnEvent(t *testing.T) {
	good, _ := json.Marshal(squidEvent())
	bad := []string{
		`not json`,
		`{"id":"../../etc","time":"2026-11-04T10:00:00Z","kind":"x","source":"proxy","format":"squid","raw":"x"}`,
		`{"id":"dccf7662f1893313","kind":"x","source":"proxy","format":"squid","raw":"x"}`,
		`{"id":"dccf7662f1893313","time":"2026-11-04T10:00:00Z","source":"proxy","format":"squid","raw":"x"}`,
		`{"id":"dccf7662f1893313","time":"2026-11-04T10:00:00Z","kind":"x","source":"\u001b[31mevil","format":"squid","raw":"x"}`,
		`{"id":"dccf7662f1893313","time":"2026-11-04T10:00:00Z","kind":"x","source":"proxy","format":"cordon-event","raw":"x"}`,
		`{"id":"dccf7662f1893313","time":"2026-11-04T10:00:00Z","kind":"x","source":"proxy","format":"squid"}`,
	}
	in := string(good) + "\n" + strings.Join(bad, "\n") + "\n" + string(good) + "\n"
	var s sink
	if _, err := ingest.Stream(strings.NewReader(in), "pull.jsonl", relay.New(), ingest.Position{}, &s, nil); err != nil {
		t.Fatal(err)
	}
	if len(s.events) != 2 || len(s.rejects) != len(bad) {
		t.Fatalf("%d events and %d rejects, want 2 and %d: %+v", len(s.events), len(s.rejects), len(bad), s.rejects)
	}
	for _, r := range s.rejects {
		if r.Reason == "" || r.Format != relay.Format {
			t.Errorf("reject without its reason or format: %+v", r)
		}
	}
}

func FuzzRelayParse(f *testing.F) {
	good, _ := json.Marshal(squidEvent())
	f.Add(good)
	f.Add([]byte(`{"id":"0000000000000000","time":"2026-11-04T10:00:00Z","kind":"k","source":"audit","format":"f","raw":"r"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, err := relay.New().Parse(parse.Record{Data: data, Line: 1})
		if err != nil {
			return
		}
		if len(evs) != 1 || len(evs[0].ID) != 16 || evs[0].Format == relay.Format || evs[0].Raw == "" || evs[0].Time.IsZero() {
			t.Fatalf("accepted %q as %+v", data, evs)
		}
	})
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }
