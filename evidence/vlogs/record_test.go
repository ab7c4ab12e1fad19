package vlogs

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// A record is written by hand, not by encoding/json: every value must
// still read back as encoding/json would have written it.
func TestRecordLineReadsBackAsJSON(t *testing.T) {
	nasty := "q\"b\\s\x00\x1f\n\r\t ü \xff\xfe end \u2028"
	ev := evidence.Event{ID: "e1", Time: time.Date(2025, 3, 1, 12, 0, 0, 5, time.UTC), Source: evidence.SourceSensor,
		Kind: evidence.KindProcExec, User: nasty, Message: nasty, Cmdline: "curl " + nasty}
	line, err := appendRecord([]byte("x"), "c1", "b1", &ev, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(line), "x{") || !strings.HasSuffix(string(line), "}\n") {
		t.Fatalf("not appended as one line: %q", line)
	}
	var got map[string]string
	if err := json.Unmarshal(line[1:], &got); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	var want string
	b, _ := json.Marshal(nasty)
	json.Unmarshal(b, &want)
	if got["user"] != want || got["message"] != want || got[fieldCase] != "c1" || got[fieldBatch] != "b1" {
		t.Errorf("user %q, message %q, case %q, batch %q; want %q", got["user"], got["message"], got[fieldCase], got[fieldBatch], want)
	}
	back, err := decode(got)
	if err != nil || back.User != want || !back.Time.Equal(ev.Time) {
		t.Errorf("the event read back: %+v (%v)", back, err)
	}
}
