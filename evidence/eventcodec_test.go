package evidence

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// everyField is an event with every field set to a value of its own, found
// by reflection: a field added to Event that the codec does not carry
// comes back empty and fails the round trip.
func everyField(t testing.TB, seed int) Event {
	var ev Event
	v := reflect.ValueOf(&ev).Elem()
	for i := 0; i < v.NumField(); i++ {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch f.Kind() {
		case reflect.String:
			f.SetString(fmt.Sprintf("%s-%d", name, seed))
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(-1000*seed - i - 1))
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{name + "-a", fmt.Sprint(seed)}))
		case reflect.Struct:
			if f.Type() != reflect.TypeOf(time.Time{}) {
				t.Fatalf("field %s: a struct the codec test does not know", name)
			}
		default:
			t.Fatalf("field %s: kind %s the codec test does not know", name, f.Kind())
		}
	}
	ev.Time = time.Date(2026, 12, 4, 9, 13, 7, 123456789+seed, time.UTC)
	return ev
}

func TestEventCodecEveryField(t *testing.T) {
	var b []byte
	want := []Event{everyField(t, 1), everyField(t, 2), {ID: "bare", Time: time.Unix(0, 0).UTC()}}
	zoned := everyField(t, 3)
	zoned.Time = zoned.Time.In(time.FixedZone("", -7*3600))
	big := everyField(t, 4)
	big.Time = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC) // past UnixNano
	want = append(want, zoned, big)
	for i := range want {
		b = AppendEvent(b, &want[i])
	}
	var d EventDecoder
	var got Event // one for all, as a reused batch's: what one event had is not the next's
	for i := range want {
		var err error
		if b, err = d.Decode(b, &got); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want[i]) || !got.Time.Equal(want[i].Time) {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, got, want[i])
		}
		_, off := got.Time.Zone()
		if _, wantOff := want[i].Time.Zone(); off != wantOff {
			t.Errorf("event %d: zone offset %d, want %d", i, off, wantOff)
		}
	}
	if len(b) != 0 {
		t.Errorf("%d bytes left", len(b))
	}
}

// A decoder told to keep the text of some events only decodes the others
// with Message and Raw empty and every other field as written, asking
// once with each event's own source and kind; one told to leave out the
// origins leaves out those alone; a truncated Raw is still refused.
func TestEventCodecLeavesOut(t *testing.T) {
	var want []Event
	for i := range 6 {
		ev := everyField(t, i)
		ev.Raw = strings.Repeat("r", 100*i) // lengths of one byte and of two
		ev.Message = strings.Repeat("m", 70*i)
		want = append(want, ev)
	}
	var b []byte
	for i := range want {
		b = AppendEvent(b, &want[i])
	}
	var asked [][2]string
	d := EventDecoder{KeepText: func(source, kind string) bool {
		asked = append(asked, [2]string{source, kind})
		return len(asked)%2 == 0
	}}
	var got Event
	for i := range want {
		var err error
		if b, err = d.Decode(b, &got); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if a := asked[len(asked)-1]; len(asked) != i+1 || a != [2]string{want[i].Source, want[i].Kind} {
			t.Fatalf("event %d: asked %v, want once with its source and kind", i, asked)
		}
		w := want[i]
		if i%2 == 0 {
			w.Raw, w.Message = "", ""
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("event %d (text kept: %v):\n got %+v\nwant %+v", i, i%2 == 1, got, w)
		}
	}
	if len(b) != 0 {
		t.Errorf("%d bytes left", len(b))
	}
	var all []byte
	for i := range want {
		all = AppendEvent(all, &want[i])
	}
	d = EventDecoder{NoOrigin: true}
	for i := range want {
		var err error
		if all, err = d.Decode(all, &got); err != nil {
			t.Fatalf("event %d without its origin: %v", i, err)
		}
		w := want[i]
		w.Origin = ""
		if !reflect.DeepEqual(got, w) {
			t.Errorf("event %d without its origin:\n got %+v\nwant %+v", i, got, w)
		}
	}
	ev := everyField(t, 9)
	enc := AppendEvent(nil, &ev)
	cut := enc[:bytes.Index(enc, []byte(ev.Raw))+len(ev.Raw)/2]
	if _, err := (&EventDecoder{KeepText: func(string, string) bool { return false }}).Decode(cut, &got); !errors.Is(err, ErrEventCodec) {
		t.Errorf("a record as written cut short and not kept: %v, want ErrEventCodec", err)
	}
}

// Interned values are shared between events; a long value is not.
func TestEventCodecInterns(t *testing.T) {
	a, c := everyField(t, 1), everyField(t, 1)
	b := AppendEvent(AppendEvent(nil, &a), &c)
	var d EventDecoder
	var x, y Event
	rest, err := d.Decode(b, &x)
	if err == nil {
		_, err = d.Decode(rest, &y)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !unsafeSame(x.Agent, y.Agent) {
		t.Error("the agent is not shared between two events that name it")
	}
	if x.ID != y.ID || unsafeSame(x.ID, y.ID) {
		t.Error("the id is interned: every event's id is its own")
	}
}

func unsafeSame(a, b string) bool {
	return len(a) > 0 && unsafe.StringData(a) == unsafe.StringData(b)
}

// Every cut of a valid encoding is refused with ErrEventCodec, never a panic.
func TestEventCodecTruncated(t *testing.T) {
	ev := everyField(t, 7)
	b := AppendEvent(nil, &ev)
	var d EventDecoder
	for n := 0; n < len(b); n++ {
		var got Event
		if _, err := d.Decode(b[:n], &got); !errors.Is(err, ErrEventCodec) {
			t.Fatalf("cut at %d of %d: %v", n, len(b), err)
		}
	}
}

func FuzzEventDecode(f *testing.F) {
	ev := everyField(f, 1)
	f.Add(AppendEvent(nil, &ev))
	f.Add([]byte{0x80, 0x80, 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		var d EventDecoder
		var got Event
		if _, err := d.Decode(b, &got); err != nil {
			return
		}
		// what decodes, encoded again, decodes to the same event
		var again Event
		if _, err := d.Decode(AppendEvent(nil, &got), &again); err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("decoded %+v, then %+v (%v)", got, again, err)
		}
	})
}

// The generation changes with every write of events, in the same step,
// and not when a batch stores nothing new; it survives a reopen.
func TestGenerationFollowsWrites(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	gen := func() string {
		t.Helper()
		g, err := st.(Generationer).Generation()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	ctx := context.Background()
	a, b := everyField(t, 1), everyField(t, 2)
	seen := map[string]bool{gen(): true}
	if _, err := st.Index(ctx, []Event{a}, nil); err != nil {
		t.Fatal(err)
	}
	g1 := gen()
	if seen[g1] {
		t.Fatalf("an Index that stored an event left the generation at %q", g1)
	}
	seen[g1] = true
	if _, err := st.Index(ctx, []Event{a}, map[string][]byte{"k": []byte("v")}); err != nil {
		t.Fatal(err)
	}
	if g := gen(); g != g1 {
		t.Errorf("an Index that stored nothing new changed the generation")
	}
	a.Agent = "someone-else"
	if _, err := st.Replace(ctx, []Event{a}); err != nil {
		t.Fatal(err)
	}
	g2 := gen()
	if seen[g2] {
		t.Fatalf("a Replace left the generation at %q", g2)
	}
	if _, err := st.Index(ctx, []Event{b}, nil); err != nil {
		t.Fatal(err)
	}
	g3 := gen()
	if g3 == g2 {
		t.Fatal("a second Index left the generation")
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err = Open(dir, Options{ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if g := gen(); g != g3 {
		t.Errorf("after a reopen the generation is %q, want %q", g, g3)
	}
}
