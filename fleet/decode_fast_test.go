package fleet

import (
	"reflect"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	jsonv2 "github.com/go-json-experiment/json"
)

// odd are messages the fast path must leave to the general decoder, or
// read exactly as it does: names in another case or unknown, a name
// twice, nulls, numbers it does not take, escapes of every kind, invalid
// UTF-8 and surrogates, whitespace, what follows the object.
var odd = []string{
	`{"id":"a","time":"2026-11-04T10:01:15.856Z","source":"proxy","format":"squid","kind":"k"}`,
	` {"id" : "a" ,"time":"2026-11-04T10:01:15Z","kind":"k","tags":[ "x" , "y" ],"cut":[]} `,
	`{"ID":"a","time":"2026-11-04T10:01:15Z","kind":"k"}`,
	`{"id":"a","Id":"b","time":"2026-11-04T10:01:15Z","kind":"k"}`,
	`{"id":"a","id":"b","time":"2026-11-04T10:01:15Z","kind":"k"}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","nope":{"x":[1,2]}}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","agent":null}`,
	`{"id":"a","time":null,"kind":"k"}`,
	`{"id":"a","time":"2026-11-04 10:01:15","kind":"k"}`,
	`{"id":"a","time":"2026-11-04T10:01:15+01:00","kind":"k"}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","dst_port":443,"bytes_in":-0,"pid":0}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","dst_port":1e3}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","dst_port":443.0}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","dst_port":0443}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","dst_port":"443"}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","bytes_in":9223372036854775807}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","bytes_in":-999999999999999999}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","raw":"q\"u\\o\/t\b\f\n\r\te \u00e9 \ud83d\ude00"}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","raw":"{\"q\":\"a\\\\b\"} \/ \b\f\n\r\t end\\"}`,
	"{\"id\":\"a\",\"time\":\"2026-11-04T10:01:15Z\",\"kind\":\"k\",\"raw\":\"esc \\\x01 ctl\"}",
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","raw":"a \u003e b \u0026 \u003C\u0000\u001f\u007f\u0080 \u00e9"}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","raw":"\u003e \u003x \u00"}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","message":"x -\u003e y","raw":"\u0026"}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","raw":"lone \ud800 surrogate"}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","raw":"bad \x escape"}`,
	"{\"id\":\"a\",\"time\":\"2026-11-04T10:01:15Z\",\"kind\":\"k\",\"raw\":\"a\xffb\"}",
	"{\"id\":\"a\",\"time\":\"2026-11-04T10:01:15Z\",\"kind\":\"k\",\"raw\":\"caf\xc3\xa9\"}",
	"{\"id\":\"a\",\"time\":\"2026-11-04T10:01:15Z\",\"kind\":\"k\",\"raw\":\"tab\there\"}",
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","tags":["x",null]}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k","tags":"x"}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k"} x`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k",}`,
	`{"id":"a","time":"2026-11-04T10:01:15Z","kind":"k"`,
	`{"i\u0064":"a","time":"2026-11-04T10:01:15Z","kind":"k"}`,
	`{}`,
	`[]`,
	``,
}

// decodeFast reads every event of the bundled samples (it is the path
// they take) and every odd message exactly as the general decoder does,
// or leaves it to it.
func TestDecodeFastReadsAsDecoderDoes(t *testing.T) {
	for _, m := range sampleMessages(t) {
		if !fastAgrees(t, m.Data) {
			t.Fatalf("%.80s as Encode writes it was left to the general decoder", m.Data)
		}
	}
	taken := 0
	for _, m := range odd {
		if fastAgrees(t, []byte(m)) {
			taken++
		}
	}
	if taken < 5 || taken == len(odd) {
		t.Fatalf("the fast path read %d of the %d odd messages: the cases do not cover both paths", taken, len(odd))
	}
}

// FuzzDecodeFast: whatever the fast path reads, the general decoder reads
// the same.
//
//	go test ./fleet -run '^$' -fuzz FuzzDecodeFast -fuzztime 30s
func FuzzDecodeFast(f *testing.F) {
	for _, m := range odd {
		f.Add([]byte(m))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fastAgrees(t, data) })
}

// fastAgrees reports whether decodeFast read data, and fails t if it did
// and the general decoder reads it otherwise or refuses it.
func fastAgrees(t *testing.T, data []byte) bool {
	t.Helper()
	var fast evidence.Event
	if !decodeFast(data, &fast) {
		return false
	}
	var want evidence.Event
	if err := jsonv2.Unmarshal(data, &want, decodeOptions); err != nil {
		t.Fatalf("the fast path read %q, the general decoder refuses it: %v", data, err)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("%q: the fast path read\n%#v\nthe general decoder\n%#v", data, fast, want)
	}
	return true
}
