package vlogs

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// answer is rows as VictoriaLogs gives them: each record's columns (the
// event's first, last or in between), one JSON object a line, written by
// encoding/json as the server escapes them.
func answer(t testing.TB, evs []evidence.Event) []byte {
	t.Helper()
	var out bytes.Buffer
	for i := range evs {
		line, err := appendRecord(nil, "c1", "b1", &evs[i], 0, "")
		if err != nil {
			t.Fatal(err)
		}
		var rec map[string]string
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		row := map[string]string{fieldEvent: rec[fieldEvent]}
		if i%2 == 1 { // columns besides the event, before and after it
			row["_time"], row["zz"] = rec[fieldTime], "after"
		}
		b, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// The rows read as a stream give the events the map-then-encoding/json
// reading of the event's JSON gave, hostile strings included, whether a
// row holds the event's text form or (as before) its JSON.
func TestEachEventReadsAsBefore(t *testing.T) {
	hostile := "q\"b\\s\x00\x1f\n\r\t ü end \u2028 \\u0041 {\"x\":1}" // valid UTF-8
	nasty := hostile + " \xff\xfe"
	at := time.Date(2025, 3, 1, 12, 0, 0, 5, time.FixedZone("x", 3600))
	evs := []evidence.Event{
		{ID: "e1", Time: at, Source: evidence.SourceSensor, Kind: evidence.KindProcExec, User: nasty, Message: nasty, Cmdline: "curl " + nasty,
			Tags: []string{"a", nasty}, Pid: 42, BytesOut: 1 << 40, Raw: strings.Repeat(nasty, 100)},
		{ID: "e2", Time: at.Add(time.Second), Source: evidence.SourceProxy, Kind: evidence.KindNetRequest, URL: "https://x/?q=" + hostile, DstPort: 443, Message: hostile, Raw: strings.Repeat(hostile, 50)},
		{ID: "e3", Time: at.Add(2 * time.Second), Message: ""},
	}
	// what the store read before the text form: the event's JSON
	var want []evidence.Event
	for i := range evs {
		j, err := json.Marshal(evs[i])
		if err != nil {
			t.Fatal(err)
		}
		var ev evidence.Event
		if err := json.Unmarshal(j, &ev); err != nil {
			t.Fatal(err)
		}
		ev.Time = ev.Time.UTC()
		want = append(want, ev)
	}
	body := answer(t, evs)
	if n := bytes.Count(body, []byte(`"`+fieldEvent+`":"`+evidence.EventTextMark)); n != 2 {
		t.Fatalf("%d of the rows hold the text form, want the two whose text is valid UTF-8", n)
	}
	// and rows a case written before the text form holds
	for i := range evs {
		j, _ := json.Marshal(evs[i])
		b, _ := json.Marshal(map[string]string{fieldEvent: string(j)})
		body = append(append(body, b...), '\n')
	}
	want = append(want, want...)
	var got []evidence.Event
	if err := eachEvent(bytes.NewReader(body), func(ev evidence.Event) error {
		got = append(got, ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
	if got[0].User == nasty || !strings.Contains(got[0].User, "\ufffd") {
		t.Errorf("invalid UTF-8 read back as %q, want U+FFFD in its place", got[0].User)
	}
}

// A row without the event, or an answer cut mid-row, is an error, not an
// event read as empty.
func TestEachEventRefusesWhatIsNotARecord(t *testing.T) {
	for _, body := range []string{
		`{"_time":"2025-03-01T12:00:00Z"}` + "\n",
		`{"cordon_ev":"{\"id\":\"e1\"` + "\n",
		`{"cordon_ev":17}` + "\n",
		`{"cordon_ev":"{\"id\":17}"}` + "\n",
		`["cordon_ev"]` + "\n",
	} {
		err := eachEvent(strings.NewReader(body), func(evidence.Event) error { return nil })
		if err == nil {
			t.Errorf("%q read without an error", body)
		}
	}
}

// BenchmarkEachEvent decodes a page of rows as the detectors read them
// (2,000 events): compare with BenchmarkEachEventMaps, the reading before.
func BenchmarkEachEvent(b *testing.B) {
	body := benchAnswer(b)
	for b.Loop() {
		if err := eachEvent(bytes.NewReader(body), func(evidence.Event) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEachEventMaps is the reading before: a map per row, then the
// event, both with encoding/json.
func BenchmarkEachEventMaps(b *testing.B) {
	body := benchAnswer(b)
	for b.Loop() {
		for _, line := range bytes.Split(bytes.TrimSpace(body), []byte("\n")) {
			row := map[string]string{}
			if err := json.Unmarshal(line, &row); err != nil {
				b.Fatal(err)
			}
			var ev evidence.Event
			if err := json.Unmarshal([]byte(row[fieldEvent]), &ev); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func benchAnswer(b *testing.B) []byte {
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	evs := make([]evidence.Event, 2000)
	for i := range evs {
		evs[i] = evidence.Event{ID: "ev-" + strings.Repeat("x", i%7), Time: at.Add(time.Duration(i) * time.Millisecond),
			Source: evidence.SourceProxy, Format: "squid", Kind: evidence.KindNetRequest, Agent: "agent-7", Run: "run-1",
			Session: "s-1", DstHost: "api.example.com", DstPort: 443, URL: "https://api.example.com/v1/items?id=17",
			Method: "GET", Status: "200", BytesOut: 512, BytesIn: 2048, Tags: []string{"egress"},
			Message: "GET https://api.example.com/v1/items?id=17 200", Raw: `1733300000.123 17 10.0.0.7 TCP_MISS/200 2048 GET https://api.example.com/v1/items?id=17 - HIER_DIRECT/93.184.216.34 application/json`}
	}
	return answer(b, evs)
}
