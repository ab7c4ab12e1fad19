package fleet

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

// Decode reads every event of the bundled samples as encoding/json reads
// it, field for field, and a hand-written message as encoding/json would
// (names in another case, invalid UTF-8); a name given twice is refused.
func TestDecodeReadsAsEncodingJSONDoes(t *testing.T) {
	for _, m := range sampleMessages(t) {
		got, err := Decode(m.Subject, m.Header, m.Data)
		if err != nil {
			t.Fatalf("%.80s: %v", m.Data, err)
		}
		var want evidence.Event
		if err := json.Unmarshal(m.Data, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("event %s decoded\n%+v\nencoding/json reads\n%+v", want.ID, got, want)
		}
	}
	subject := EventSubject("proxy", "squid")
	odd := `{"ID":"00000000000000aa","Time":"2026-11-04T10:01:15.856Z","SOURCE":"proxy","format":"squid","kind":"net_request","raw":"a` + "\xff" + `b","dst_port":443}`
	got, err := Decode(subject, nil, []byte(odd))
	if err != nil {
		t.Fatal(err)
	}
	var want evidence.Event
	if err := json.Unmarshal([]byte(odd), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || !strings.Contains(got.Raw, "\uFFFD") {
		t.Fatalf("decoded\n%+v\nencoding/json reads\n%+v", got, want)
	}
	twice := `{"id":"00000000000000aa","time":"2026-11-04T10:01:15.856Z","source":"proxy","format":"squid","kind":"net_request","agent":"a","agent":"b"}`
	if _, err := Decode(subject, nil, []byte(twice)); err == nil {
		t.Fatal("an event naming agent twice was read")
	}
}

// BenchmarkDecode is the cost of reading one shipped event (a Squid
// request, ~600 bytes), and encoding/json's for comparison.
//
//	go test ./fleet -run '^$' -bench Decode
func BenchmarkDecode(b *testing.B) {
	ev := evidence.Event{ID: "dccf7662f1893313", Source: "proxy", Format: "squid", Kind: "net_request", Decision: "allow",
		Tags: []string{"TCP_TUNNEL", "HIER_DIRECT"}, SrcIP: "10.0.6.21", DstHost: "pypi.org", DstIP: "151.101.0.223", DstPort: 443,
		URL: "pypi.org:443", Method: "CONNECT", Status: "200", BytesIn: 86620, DurationMS: 3288, User: "px-s701",
		Message: "CONNECT pypi.org:443 -> 200 TCP_TUNNEL by px-s701",
		Raw:     "1793786475.856   3288 10.0.6.21 TCP_TUNNEL/200 86620 CONNECT pypi.org:443 px-s701 HIER_DIRECT/151.101.0.223 -",
		Origin:  "/var/log/squid/access.log:1"}
	ev.Time = ev.Time.AddDate(2026, 10, 3)
	m, err := Encode(&ev)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Decode", func(b *testing.B) {
		b.SetBytes(int64(len(m.Data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Decode(m.Subject, m.Header, m.Data); err != nil {
				b.Fatal(err)
			}
		}
	})
	// what Decode used before, for comparison
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(m.Data)))
		b.ReportAllocs()
		for b.Loop() {
			var ev evidence.Event
			if err := json.Unmarshal(m.Data, &ev); err != nil {
				b.Fatal(err)
			}
		}
	})
}
