package main

// A small JSON writer with a fixed key order and no HTML escaping, so every
// record renders byte for byte the same way on every run.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// kv and obj give JSON objects a fixed key order, as protobuf-JSON (Tetragon)
// and the ledger writer produce them.
type kv struct {
	k string
	v any
}

type obj []kv

// opt appends k only when v is not its zero value.
func (o obj) opt(k string, v any) obj {
	switch x := v.(type) {
	case string:
		if x == "" {
			return o
		}
	case int:
		if x == 0 {
			return o
		}
	case int64:
		if x == 0 {
			return o
		}
	case nil:
		return o
	case obj:
		if x == nil {
			return o
		}
	}
	return append(o, kv{k, v})
}

func marshal(v any) string {
	var b bytes.Buffer
	writeJSON(&b, v)
	return b.String()
}

func writeJSON(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case obj:
		b.WriteByte('{')
		for i, p := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, p.k)
			b.WriteByte(':')
			writeJSON(b, p.v)
		}
		b.WriteByte('}')
	case []obj:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := make(obj, 0, len(keys))
		for _, k := range keys {
			o = append(o, kv{k, x[k]})
		}
		writeJSON(b, o)
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		writeJSON(b, m)
	case nil:
		b.WriteString("null")
	case string:
		writeString(b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case uint32:
		b.WriteString(strconv.FormatUint(uint64(x), 10))
	default:
		panic(fmt.Sprintf("writeJSON: unsupported %T", v))
	}
}

// writeString escapes like Falco/Envoy/Go protojson: no HTML escaping of < > &.
func writeString(b *bytes.Buffer, s string) {
	var t bytes.Buffer
	e := json.NewEncoder(&t)
	e.SetEscapeHTML(false)
	_ = e.Encode(s)
	b.Write(bytes.TrimRight(t.Bytes(), "\n"))
}
