package otlp

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/ingest/parse"
)

// otlpKV is an OTLP KeyValue.
type otlpKV struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

// otlpValue is an OTLP AnyValue, every variant: int64 as a JSON string or
// number, doubles also as "NaN"/"Infinity", bytes in base64.
type otlpValue struct {
	StringValue *string    `json:"stringValue"`
	BoolValue   *bool      `json:"boolValue"`
	IntValue    parse.Flex `json:"intValue"`
	DoubleValue parse.Flex `json:"doubleValue"`
	BytesValue  *string    `json:"bytesValue"`
	ArrayValue  *struct {
		Values []otlpValue `json:"values"`
	} `json:"arrayValue"`
	KvlistValue *struct {
		Values []otlpKV `json:"values"`
	} `json:"kvlistValue"`
}

// any is the value as plain Go data, for rendering.
func (v otlpValue) any() any {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.BoolValue != nil:
		return *v.BoolValue
	case v.IntValue != "":
		return json.Number(v.IntValue.String())
	case v.DoubleValue != "":
		return v.DoubleValue.String()
	case v.BytesValue != nil:
		return *v.BytesValue
	case v.ArrayValue != nil:
		out := make([]any, 0, len(v.ArrayValue.Values))
		for _, e := range v.ArrayValue.Values {
			out = append(out, e.any())
		}
		return out
	case v.KvlistValue != nil:
		out := make(map[string]any, len(v.KvlistValue.Values))
		for _, kv := range v.KvlistValue.Values {
			out[kv.Key] = kv.Value.any()
		}
		return out
	}
	return nil
}

// text is the value as one string: scalars as written, a list of scalars
// comma-joined, anything else as JSON.
func (v otlpValue) text() string {
	switch x := v.any().(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return x.String()
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				b, _ := json.Marshal(x)
				return string(b)
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ",")
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// otlpAttrs are attributes by key; a repeated key keeps its last value.
type otlpAttrs map[string]otlpValue

func attrsOf(kvs []otlpKV) otlpAttrs {
	a := make(otlpAttrs, len(kvs))
	for _, kv := range kvs {
		a[kv.Key] = kv.Value
	}
	return a
}

// str is the text of the first of keys that has a value.
func (a otlpAttrs) str(keys ...string) string {
	for _, k := range keys {
		if v, ok := a[k]; ok {
			if s := v.text(); s != "" {
				return s
			}
		}
	}
	return ""
}

// first is the first element of a list value, or the value itself.
func (a otlpAttrs) first(key string) string {
	v, ok := a[key]
	if !ok {
		return ""
	}
	if v.ArrayValue != nil {
		if len(v.ArrayValue.Values) == 0 {
			return ""
		}
		return v.ArrayValue.Values[0].text()
	}
	return v.text()
}

// unixNano reads a *UnixNano field (string or number); zero when absent.
func unixNano(f parse.Flex) time.Time {
	s := f.String()
	if s == "" || s == "0" {
		return time.Time{}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		x, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || x <= 0 || x > 9.2e18 {
			return time.Time{}
		}
		n = int64(x)
	}
	if n <= 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// otlpID writes a trace or span id as lowercase hex, the way W3C trace
// context and every tracing UI show it. OTLP/JSON carries hex; a base64 id
// (generic protobuf JSON) is converted.
func otlpID(s string, size int) string {
	if s == "" {
		return ""
	}
	if b, err := hex.DecodeString(s); err == nil && len(b) == size {
		return strings.ToLower(s)
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil && len(b) == size {
		return hex.EncodeToString(b)
	}
	return s
}

// otlpEnum reads an enum written as its number or its name
// (SPAN_KIND_CLIENT, STATUS_CODE_ERROR).
func otlpEnum(f parse.Flex, names ...string) int {
	s := f.String()
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	for i, name := range names {
		if strings.EqualFold(s, name) {
			return i
		}
	}
	return 0
}
