package inspect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// parser parses UK AISI Inspect AI eval logs, the agent harness's own record
// of an evaluation: the JSON log (one EvalLog object) and the .eval ZIP
// container (header.json + samples/<id>_epoch_<n>.json). Logs run to
// hundreds of megabytes, so it is a StreamParser: it walks the document and
// holds one sample's trimmed events at a time.
type parser struct{ opt Options }

// Options choose what an Inspect log yields.
type Options struct {
	// Content indexes what a model call was sent and answered (cut to the
	// message line) and keeps model events' raw JSON. Off by default: a
	// model_call then names the model, its token counts and a sha256 digest
	// of its input, and its raw is that summary.
	Content bool
}

// New returns the parser for Inspect AI eval logs (.json and .eval).
func New(opt Options) parse.Parser { return parser{opt: opt} }

func (parser) Format() string         { return "inspect" }
func (parser) Source() string         { return evidence.SourceLedger }
func (parser) Framing() parse.Framing { return parse.Whole }

// Sniff sees the file's first 256 KiB: a ZIP whose entries are an eval
// log's, or a JSON object whose keys begin `"version": 2, ..., "eval": {`.
func (parser) Sniff(head []byte) bool {
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		return bytes.Contains(head, []byte("header.json")) || bytes.Contains(head, []byte("_journal/start.json")) ||
			bytes.Contains(head, []byte("samples/")) && bytes.Contains(head, []byte("_epoch_"))
	}
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	version := false
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return false
		}
		switch key {
		case "version":
			var v json.Number
			if dec.Decode(&v) != nil {
				return false
			}
			version = v == "2" || v == "1"
		case "eval":
			t, err := dec.Token()
			return err == nil && version && t == json.Delim('{')
		default:
			if skipValue(dec) != nil {
				return false
			}
		}
	}
	return false
}

// Parse reads a whole log held in memory; ingest uses ParseStream.
func (p parser) Parse(rec parse.Record) ([]evidence.Event, error) {
	c := &collectSink{}
	r := bytes.NewReader(rec.Data)
	if err := p.ParseStream(parse.Input{Name: "log", R: r, At: r, Size: r.Size()}, c); err != nil {
		return nil, err
	}
	if len(c.events) == 0 && len(c.rejects) > 0 {
		return nil, errors.New(c.rejects[0].Reason)
	}
	if len(c.events) == 0 {
		return nil, parse.ErrSkip
	}
	return c.events, nil
}

// collectSink keeps what a StreamParser emits, for Parse.
type collectSink struct {
	events  []evidence.Event
	rejects []parse.Reject
}

func (c *collectSink) Event(ev evidence.Event) error { c.events = append(c.events, ev); return nil }
func (c *collectSink) Reject(r parse.Reject) error   { c.rejects = append(c.rejects, r); return nil }

// ParseStream reads a JSON log from in.R, or a .eval container through
// in.At (copied to a temporary file first when there is no random access).
func (p parser) ParseStream(in parse.Input, out parse.Sink) error {
	br := bufio.NewReaderSize(in.R, 64<<10)
	if magic, _ := br.Peek(2); string(magic) == "PK" {
		return p.parseEval(in, br, out)
	}
	return p.parseJSON(in.Name, br, out)
}

// inspectHeader is what an eval log says about the whole evaluation.
type inspectHeader struct {
	Version json.Number `json:"version"`
	Status  string      `json:"status"`
	Eval    inspectSpec `json:"eval"`
	Stats   struct {
		StartedAt   string `json:"started_at"`
		CompletedAt string `json:"completed_at"`
	} `json:"stats"`
	problems []string // header fields of an unexpected type
}

type inspectSpec struct {
	EvalID   string          `json:"eval_id"`
	RunID    string          `json:"run_id"`
	Created  string          `json:"created"`
	Task     string          `json:"task"`
	TaskID   string          `json:"task_id"`
	Model    string          `json:"model"`
	Sandbox  *inspectSandbox `json:"sandbox"`
	Metadata map[string]any  `json:"metadata"`
}

// inspectSandbox is a SandboxEnvironmentSpec: a type (docker, k8s, ...)
// and its config, a file name or an object.
type inspectSandbox struct {
	Type   string          `json:"type"`
	Config json.RawMessage `json:"config"`
}

// parseJSON walks one EvalLog object: the header fields are decoded whole
// (they are small), samples one at a time.
func (p parser) parseJSON(name string, r io.Reader, out parse.Sink) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	h := &inspectHeader{}
	n := 0
	err := walkLog(dec, h, func() error {
		if err := h.reportProblems(name, out); err != nil {
			return err
		}
		s := newInspectSample(p, h, name+"#samples/"+strconv.Itoa(n))
		n++
		err := s.walk(dec)
		if ferr := s.finish(out, err != nil); ferr != nil {
			return ferr
		}
		return err
	})
	if err == nil {
		err = h.reportProblems(name, out)
	}
	if err == nil && n == 0 && h.Version == "" && h.Eval.EvalID == "" && h.Eval.Task == "" && h.Eval.Created == "" {
		// A JSON object, but nothing of an eval log in it: said, not
		// taken for a log with no samples yet.
		return out.Reject(parse.Reject{Origin: name, Reason: "not an Inspect eval log: no version, no eval and no samples"})
	}
	if err == nil || isSinkErr(err) {
		return err
	}
	origin := name
	if n > 0 {
		origin += "#samples/" + strconv.Itoa(n-1)
	}
	return out.Reject(parse.Reject{Origin: origin, Offset: dec.InputOffset(),
		Reason: fmt.Sprintf("not a readable Inspect log at byte %d: %v; the rest of the file was not read", dec.InputOffset(), err)})
}

// reportProblems rejects the header fields that could not be read, once.
func (h *inspectHeader) reportProblems(origin string, out parse.Sink) error {
	for _, p := range h.problems {
		if err := out.Reject(parse.Reject{Origin: origin, Reason: "eval log field " + p}); err != nil {
			return sinkError{err}
		}
	}
	h.problems = nil
	return nil
}

// walkLog decodes an EvalLog's header fields into h and calls sample for
// each element of samples, with dec positioned at it.
func walkLog(dec *json.Decoder, h *inspectHeader, sample func() error) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return err
		}
		switch key {
		case "version":
			err = dec.Decode(&h.Version)
		case "status":
			err = dec.Decode(&h.Status)
		case "eval":
			err = dec.Decode(&h.Eval)
		case "stats":
			err = dec.Decode(&h.Stats)
		case "samples":
			err = walkArray(dec, func(int) error { return sample() })
		default:
			err = skipValue(dec)
		}
		if tolerable(err) {
			h.problems = append(h.problems, key+": "+err.Error())
			continue
		}
		if err != nil {
			return err
		}
	}
	return expectDelim(dec, '}')
}

// sinkError marks an error of the sink, which must reach the driver unchanged.
type sinkError struct{ err error }

func (e sinkError) Error() string { return e.err.Error() }
func (e sinkError) Unwrap() error { return e.err }

func isSinkErr(err error) bool { var s sinkError; return errors.As(err, &s) }

// expectDelim reads one delimiter token.
func expectDelim(dec *json.Decoder, d json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != d {
		return fmt.Errorf("found %v where %q was expected", t, string(d))
	}
	return nil
}

// objectKey reads the next key of an object.
func objectKey(dec *json.Decoder) (string, error) {
	t, err := dec.Token()
	if err != nil {
		return "", err
	}
	k, ok := t.(string)
	if !ok {
		return "", fmt.Errorf("found %v where an object key was expected", t)
	}
	return k, nil
}

// walkArray calls each with dec positioned at each element of an array
// (null is an empty one); each must consume the element.
func walkArray(dec *json.Decoder, each func(i int) error) error {
	if ok, err := openValue(dec, '['); !ok {
		return err
	}
	for i := 0; dec.More(); i++ {
		if err := each(i); err != nil {
			return err
		}
	}
	return expectDelim(dec, ']')
}

// shapeError is a value of another type than expected, read past: the
// document can still be read after it.
type shapeError struct{ msg string }

func (e shapeError) Error() string { return e.msg }

// tolerable reports an error that left the decoder in step: a value of an
// unexpected type.
func tolerable(err error) bool {
	var te *json.UnmarshalTypeError
	var se shapeError
	return err != nil && (errors.As(err, &te) || errors.As(err, &se))
}

// openValue reads the opening delimiter of an object or array. It reports
// false for null; another value is read past and is a shapeError.
func openValue(dec *json.Decoder, open json.Delim) (bool, error) {
	t, err := dec.Token()
	if err != nil {
		return false, err
	}
	switch t {
	case open:
		return true, nil
	case nil:
		return false, nil
	case json.Delim('{'), json.Delim('['):
		if err := skipRest(dec); err != nil {
			return false, err
		}
	}
	return false, shapeError{fmt.Sprintf("found %v where %q was expected", t, string(open))}
}

// skipRest reads to the end of the object or array just opened.
func skipRest(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// skipValue reads past the next value token by token, so that a large
// value that is not needed is never held whole.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth <= 0 {
			return nil
		}
	}
}
