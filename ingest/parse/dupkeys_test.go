package parse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

func TestDuplicateKeys(t *testing.T) {
	many := `{`
	for i := range 40 {
		many += fmt.Sprintf(`"k%d":%d,`, i, i)
	}
	many += `"K7":"again"}`
	for _, c := range []struct {
		in   string
		want []string // path=value|value
	}{
		{`{"cmd":"ls","cmd":"rm -rf /"}`, []string{`cmd="ls"|"rm -rf /"`}},
		{`{"args":{"cmd":"ls","x":[1,{"y":2}],"cmd" : {"a":"}"} }}`, []string{`args.cmd="ls"|{"a":"}"}`}},
		// encoding/json matches struct fields without regard to case, and
		// after undoing escapes: each of these hides the first value.
		{`{"cmd":1,"CMD":2}`, []string{`cmd=1|2`}},
		{`{"cmd":1,"c\u006dd":2}`, []string{`cmd=1|2`}},
		{`{"cmd":1,"ＣＭＤ":2,"ｃｍｄ":3}`, []string{`ＣＭＤ=2|3`}},
		{`{"a":1,"a":2,"a":3}`, []string{`a=1|2|3`}},
		{`{"Records":[{"a":1,"a":true}],"Records":[]}`, []string{`Records.a=1|true`, `Records=[{"a":1,"a":true}]|[]`}},
		{many, []string{`k7=7|"again"`}},
		// Not duplicates.
		{`{"a":"\"a\":1,\"a\":2","b":{"a":1},"c":[{"a":1},{"a":2}]}`, nil},
		{`[{"a":1},{"a":2}]`, nil},
		{`{"cmd":1,"cmd2":2,"cm":3}`, nil},
		// Bytes that are not JSON end the scan with what was found.
		{`{"a":1,"a":2,"b":"unterminated`, []string{`a=1|2`}},
		{`}}]]{"a"`, nil},
	} {
		got := DuplicateKeys([]byte(c.in))
		var s []string
		for _, d := range got {
			var vals []string
			for _, sp := range d.Spans {
				vals = append(vals, c.in[sp[0]:sp[1]])
			}
			s = append(s, d.Path+"="+strings.Join(vals, "|"))
		}
		if !slices.Equal(s, c.want) {
			t.Errorf("DuplicateKeys(%s)\n got %q\nwant %q", c.in, s, c.want)
		}
	}
}

// refDuplicates finds the duplicate keys of a valid JSON value with
// encoding/json's own tokenizer: the reference DuplicateKeys is checked
// against. It gives each duplicate's path and how many times it occurs.
func refDuplicates(data []byte) ([]string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []string
	type frame struct {
		object bool
		path   []string
		seen   map[string]int
		first  map[string]string
		key    bool // the next token is a key
		last   string
	}
	var stack []*frame
	count := map[string]int{}
	var order []string
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.key {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].key = true
				}
				continue
			}
			k := tok.(string)
			f := foldKey(k)
			top.seen[f]++
			if top.seen[f] == 1 {
				top.first[f] = k
			}
			p := strings.Join(append(slices.Clone(top.path), top.first[f]), ".")
			if top.seen[f] == 2 {
				order = append(order, p)
			}
			if top.seen[f] >= 2 {
				count[p] = top.seen[f]
			}
			top.last, top.key = k, false
			continue
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			var p []string
			if top != nil {
				p = slices.Clone(top.path)
				if top.object {
					p = append(p, top.last)
				}
			}
			stack = append(stack, &frame{object: tok == json.Delim('{'), path: p, seen: map[string]int{}, first: map[string]string{}, key: tok == json.Delim('{')})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].key = true
		}
	}
	for _, p := range order {
		out = append(out, fmt.Sprintf("%s×%d", p, count[p]))
	}
	return out, true
}

// FuzzDuplicateKeys checks the one-pass scanner against encoding/json's
// tokenizer on every valid JSON value, and that each span it gives is a
// whole JSON value; seeded with records whose keys repeat.
func FuzzDuplicateKeys(f *testing.F) {
	for _, s := range []string{
		`{"cmd":"ls","cmd":"rm -rf /"}`,
		`{"v":1,"args":{"cmd":"ls","CMD":"curl x"}}`,
		`{"a":1,"c\u006dd":2,"cmd":[{"x":{"y":1,"y":2}}]}`,
		`{"Records":[{"eventName":"A","eventName":"B"}],"Records":[]}`,
		`{"kind":"EventList","items":[{"verb":"get","verb":"delete"}]}`,
		`{"output_fields":{"proc.cmdline":"a","proc.cmdline":"b"},"output_fields":{}}`,
		`{"ｋ":1,"Ｋ":2,"k":3,"K":4,"\u212a":5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := DuplicateKeys(data)
		if !json.Valid(data) {
			return
		}
		want, _ := refDuplicates(data)
		var have []string
		for _, d := range got {
			have = append(have, fmt.Sprintf("%s×%d", d.Path, len(d.Spans)))
			for _, sp := range d.Spans {
				if sp[0] < 0 || sp[1] > len(data) || !json.Valid(data[sp[0]:sp[1]]) {
					t.Fatalf("%s: span %v of %s is no JSON value", data, sp, d.Path)
				}
			}
		}
		if !slices.Equal(have, want) {
			t.Fatalf("%s:\n got %q\nwant %q", data, have, want)
		}
	})
}

func TestFlagDuplicates(t *testing.T) {
	rec := []byte(`{"Records":[{"n":"a","n":"b"},{"n":"c"}],"Records":[{"n":"d","n":"e"},{"n":"f"}]}`)
	evs := []evidence.Event{{Message: "d", Raw: `{"n":"d","n":"e"}`}, {Message: "f", Raw: `{"n":"f"}`}}
	hidden := FlagDuplicates(rec, evs)
	if len(hidden) != 1 || hidden[0].Path != "Records" {
		t.Fatalf("hidden %+v", hidden)
	}
	if !slices.Equal(evs[0].Tags, []string{"dup-key:n", "dup-key:Records"}) || !strings.Contains(evs[0].Message, `[dup-key n: "d" | "e"]`) {
		t.Errorf("first call: %+v", evs[0])
	}
	// The hidden array's own duplicate is in no event: the caller keeps it
	// with the array.
	if !slices.Equal(evs[1].Tags, []string{"dup-key:Records"}) {
		t.Errorf("second call: %+v", evs[1])
	}
	// A later stage keeps what an earlier one hid.
	later := evidence.Event{Message: "later"}
	KeepDuplicates(&evs[0], &later)
	if !slices.Equal(later.Tags, evs[0].Tags) || !strings.HasSuffix(evs[0].Message, strings.TrimPrefix(later.Message, "later")) {
		t.Errorf("kept: %+v", later)
	}
}

// Two keys are one for DuplicateKeys exactly when encoding/json fills one
// struct field from both, the later value winning.
func TestDuplicateKeysFoldAsEncodingJSON(t *testing.T) {
	for _, p := range [][2]string{
		{"cmd", "cmd"}, {"cmd", "CMD"}, {"cmd", "Cmd"}, {"cmd", `c\u006dd`}, {"k", "\u212a"}, {"s", "ſ"},
		{"ｃｍｄ", "ＣＭＤ"}, {"é", "É"}, {"cmd", "cmd "}, {"cmd", "cmð"}, {"a_b", "a-b"}, {"ß", "SS"},
	} {
		field, _ := strconv.Unquote(`"` + p[0] + `"`)
		typ := reflect.StructOf([]reflect.StructField{{Name: "X", Type: reflect.TypeFor[int](), Tag: reflect.StructTag(`json:"` + field + `"`)}})
		v := reflect.New(typ)
		data := []byte(`{"` + p[0] + `":1,"` + p[1] + `":2}`)
		if err := json.Unmarshal(data, v.Interface()); err != nil {
			t.Fatal(err)
		}
		same := v.Elem().Field(0).Int() == 2
		if got := len(DuplicateKeys(data)) == 1; got != same {
			t.Errorf("%s: DuplicateKeys says one key %v, encoding/json %v", data, got, same)
		}
	}
}
