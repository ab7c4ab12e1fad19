package evidence

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// Every field comes back as written, the time in UTC; text with the
// characters a JSON line escapes (quotes, backslashes, newlines, control
// characters) and lengths past one digit too.
func TestEventTextEveryField(t *testing.T) {
	want := []Event{everyField(t, 1), everyField(t, 22), {ID: "bare", Time: time.Unix(0, 0).UTC()}}
	odd := everyField(t, 3)
	odd.Raw = `{"msg":"a \"quoted\" \\ path","n":1}` + "\n\t\x01\x7f 9:x;1;é"
	odd.Tags = []string{"", "12:", ";", "日本"}
	odd.Time = time.Date(1900, 1, 2, 3, 4, 5, 6, time.FixedZone("", 3600))
	want = append(want, odd)
	for i := range want {
		b := AppendEventText(nil, &want[i])
		var got Event
		if err := DecodeEventText(b, &got); err != nil {
			t.Fatalf("event %d: %v\n%q", i, err, b)
		}
		w := want[i]
		w.Time = w.Time.UTC()
		if !reflect.DeepEqual(got, w) {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, got, w)
		}
	}
}

// What the text form reads is what the event's JSON read (the form the
// store wrote before): the same event, field by field, for any event whose
// text is valid UTF-8.
func TestEventTextReadsAsJSONDid(t *testing.T) {
	for i, ev := range []Event{everyField(t, 5), {ID: "x", Time: time.Date(2026, 7, 21, 10, 0, 0, 1, time.FixedZone("", -3600)), Tags: []string{}}} {
		j, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		var fromJSON, fromText Event
		if err := json.Unmarshal(j, &fromJSON); err != nil {
			t.Fatal(err)
		}
		fromJSON.Time = fromJSON.Time.UTC()
		if err := DecodeEventText(AppendEventText(nil, &ev), &fromText); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fromText, fromJSON) {
			t.Errorf("event %d:\ntext %+v\njson %+v", i, fromText, fromJSON)
		}
	}
}

// Every cut and every one-byte change of a valid form is refused or reads
// as some event, never a panic; a cut is always refused.
func TestEventTextDamaged(t *testing.T) {
	ev := everyField(t, 7)
	b := AppendEventText(nil, &ev)
	for n := 0; n < len(b); n++ {
		var got Event
		if err := DecodeEventText(b[:n], &got); err == nil {
			t.Fatalf("cut at %d of %d read as an event", n, len(b))
		}
	}
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 0x15
		var got Event
		_ = DecodeEventText(c, &got)
	}
}

func FuzzEventText(f *testing.F) {
	ev := everyField(f, 1)
	f.Add(AppendEventText(nil, &ev))
	f.Add([]byte("~1" + "99999999999999999999999:"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var got Event
		if err := DecodeEventText(b, &got); err != nil {
			return
		}
		var again Event
		if err := DecodeEventText(AppendEventText(nil, &got), &again); err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("decoded %+v, then %+v (%v)", got, again, err)
		}
	})
}
