package evidence

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
	"slices"
	"time"
	"unicode/utf8"
)

// The binary form of an event, for the engine's replay log: every field
// in a fixed order, strings and lists length-prefixed, numbers as
// varints. It is not an interchange format (the JSON of `--json` is):
// the log names the codec's version and is thrown away, not read, when
// the version differs. Decoding allocates each string anew, so what a
// reader keeps of an event never pins the buffer it came from.

// EventCodec is the codec's version; a change to the form below changes it.
const EventCodec = "event/1"

// ErrEventCodec: the bytes are not an event in this codec's form.
var ErrEventCodec = errors.New("not an encoded event")

// AppendEvent appends ev's binary form to b.
func AppendEvent(b []byte, ev *Event) []byte {
	b = appendString(b, ev.ID)
	b = binary.AppendVarint(b, ev.Time.Unix())
	b = binary.AppendUvarint(b, uint64(ev.Time.Nanosecond()))
	_, off := ev.Time.Zone()
	if ev.Time.Location() == time.UTC {
		off = 0
	}
	b = binary.AppendVarint(b, int64(off))
	for _, s := range ev.stringFields() {
		b = appendString(b, *s)
	}
	for _, l := range ev.listFields() {
		b = binary.AppendUvarint(b, uint64(len(*l)))
		for _, s := range *l {
			b = appendString(b, s)
		}
	}
	for _, n := range ev.intFields() {
		b = binary.AppendVarint(b, int64(*n))
	}
	for _, n := range ev.int64Fields() {
		b = binary.AppendVarint(b, *n)
	}
	return b
}

// EventDecoder decodes events in the binary form. It shares the short
// values that repeat from event to event (sources, kinds, agents, hosts,
// tools) between the events that hold them, so a million events do not
// each hold their own copy: each such field has a small cache, a value
// found there is not allocated again.
//
// KeepText, when set, is asked of each event whether its text (Message
// and Raw, the record as written) is to be decoded: an event it says
// false of is decoded with both empty, their bytes skipped, not copied.
// It is given the event's source and kind. The text is most of what an
// event's strings weigh (three quarters on the bench incident), and a
// reader that never looks at it (a replay's detectors, of the proxies'
// and sensors' records) need not allocate it.
//
// NoOrigin, when set, decodes every event with Origin empty, for a reader
// that never asks where an event was read from: each one's is its own.
type EventDecoder struct {
	KeepText func(source, kind string) bool
	NoOrigin bool
	seed     maphash.Seed
	cache    *[stringFieldCount + 1][internSlots]string // the last slot: list values
}

// internLen bounds the values shared; internSlots is each field's cache.
const (
	internLen   = 128
	internSlots = 64
)

// Decode decodes the event at the start of b into ev and returns the
// bytes after it. It writes every field of ev, which may hold another
// event before.
func (d *EventDecoder) Decode(b []byte, ev *Event) ([]byte, error) {
	if d.cache == nil {
		d.seed, d.cache = maphash.MakeSeed(), new([stringFieldCount + 1][internSlots]string)
	}
	r := reader{b: b}
	// every field is written below, so ev is not cleared first: clearing
	// an event of a reused batch costs the collector's barrier on each of
	// its strings, once more
	ev.ID = r.str(nil, d.seed)
	sec, nsec, off := r.varint(), r.uvarint(), r.varint()
	if r.err == nil && (nsec >= 1e9 || off < -24*3600 || off > 24*3600) {
		r.err = ErrEventCodec
	}
	ev.Time = time.Unix(sec, int64(nsec)).UTC()
	if off != 0 {
		ev.Time = ev.Time.In(time.FixedZone("", int(off)))
	}
	skipText := false
	for i, s := range ev.stringFields() {
		if i == messageAt && d.KeepText != nil {
			skipText = !d.KeepText(ev.Source, ev.Kind)
		}
		if skipText && (i == messageAt || i == rawAt) || d.NoOrigin && i == originAt {
			r.skip()
			*s = ""
			continue
		}
		var slots *[internSlots]string
		if repeats[i] {
			slots = &d.cache[i]
		}
		*s = r.str(slots, d.seed)
	}
	for _, l := range ev.listFields() {
		n := r.uvarint()
		if n > uint64(len(r.b)) { // every value takes at least a byte
			r.err = ErrEventCodec
		}
		if r.err != nil || n == 0 {
			*l = nil
			continue
		}
		vs := make([]string, n)
		for i := range vs {
			vs[i] = r.str(&d.cache[stringFieldCount], d.seed)
		}
		*l = vs
	}
	for _, n := range ev.intFields() {
		*n = int(r.varint())
	}
	for _, n := range ev.int64Fields() {
		*n = r.varint()
	}
	if r.err != nil {
		return nil, r.err
	}
	return r.b, nil
}

// ValidText reports whether every string of ev is UTF-8. A store keeps an
// event as JSON, which writes each byte that is not as U+FFFD: only an
// event whose text is valid reads back as it was given.
func (ev *Event) ValidText() bool {
	if !utf8.ValidString(ev.ID) {
		return false
	}
	for _, s := range ev.stringFields() {
		if !utf8.ValidString(*s) {
			return false
		}
	}
	for _, l := range ev.listFields() {
		for _, s := range *l {
			if !utf8.ValidString(s) {
				return false
			}
		}
	}
	return true
}

// The fields in the form's order (after the id and the time). A field
// added to Event and not here fails TestEventCodecEveryField.
const stringFieldCount = 38

func (ev *Event) stringFields() [stringFieldCount]*string {
	return [...]*string{&ev.Source, &ev.Format, &ev.Kind, &ev.Agent, &ev.AttributedVia,
		&ev.Run, &ev.Session, &ev.Sandbox, &ev.Model, &ev.Objective,
		&ev.Tool, &ev.Decision, &ev.Policy, &ev.Severity,
		&ev.SrcIP, &ev.DstHost, &ev.DstIP, &ev.URL, &ev.Method, &ev.Status, &ev.UserAgent,
		&ev.Cmdline, &ev.Path, &ev.User, &ev.Host, &ev.ParentExe, &ev.ParentCmdline, &ev.Cwd,
		&ev.CallID, &ev.ExecID, &ev.ParentExecID, &ev.TraceID, &ev.SpanID,
		&ev.Container, &ev.Pod, &ev.Message, &ev.Raw, &ev.Origin}
}

// repeats marks the string fields whose values repeat from event to
// event (names, kinds, addresses, hosts), which the decoder interns; the
// others (ids, URLs, command lines, messages, raw records) rarely do, and
// are allocated as they come.
var repeats = [stringFieldCount]bool{
	true, true, true, true, true, // source, format, kind, agent, attributed_via
	true, true, true, true, true, // run, session, sandbox, model, objective
	true, true, true, true, // tool, decision, policy, severity
	true, true, true, false, true, true, true, // src_ip, dst_host, dst_ip, url, method, status, user_agent
	false, false, true, true, true, false, true, // cmdline, path, user, host, parent_exe, parent_cmdline, cwd
	false, false, false, false, false, // call, exec, parent exec, trace and span ids
	true, true, false, false, false, // container, pod, message, raw, origin (a file and line: every one differs)
}

// messageAt, rawAt and originAt are Message's, Raw's and Origin's places
// among the string fields: the text comes after the source and kind that
// EventDecoder.KeepText is given, the message first.
var messageAt, rawAt, originAt = func() (int, int, int) {
	var ev Event
	fields := ev.stringFields()
	at := func(s *string) int { return slices.Index(fields[:], s) }
	if at(&ev.Message) <= max(at(&ev.Source), at(&ev.Kind)) || at(&ev.Raw) <= at(&ev.Message) {
		panic("evidence: the text is decoded before the fields KeepText is given")
	}
	return at(&ev.Message), at(&ev.Raw), at(&ev.Origin)
}()

func (ev *Event) listFields() [5]*[]string {
	return [...]*[]string{&ev.Tags, &ev.Credential, &ev.ToolsAllowed, &ev.EgressAllowlist, &ev.Cut}
}

func (ev *Event) intFields() [4]*int {
	return [...]*int{&ev.SrcPort, &ev.DstPort, &ev.Pid, &ev.Ppid}
}

func (ev *Event) int64Fields() [3]*int64 {
	return [...]*int64{&ev.BytesOut, &ev.BytesIn, &ev.DurationMS}
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// reader reads the form, keeping the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	if len(r.b) > 0 && r.b[0] < 0x80 {
		// one byte: most of an event's strings are empty or short, and a
		// replay reads some forty lengths an event
		v := r.b[0]
		r.b = r.b[1:]
		return uint64(v)
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = ErrEventCodec
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = ErrEventCodec
		return 0
	}
	r.b = r.b[n:]
	return v
}

// skip reads past a string.
func (r *reader) skip() {
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.b)) {
		r.err = ErrEventCodec
	}
	if r.err == nil {
		r.b = r.b[n:]
	}
}

// str reads a string, shared through slots (nil: none) when it is short.
func (r *reader) str(slots *[internSlots]string, seed maphash.Seed) string {
	n := r.uvarint()
	if r.err != nil {
		return ""
	}
	if n > uint64(len(r.b)) {
		r.err = ErrEventCodec
		return ""
	}
	v := r.b[:n]
	r.b = r.b[n:]
	if n == 0 {
		return ""
	}
	if slots == nil || n > internLen {
		return string(v)
	}
	slot := &slots[maphash.Bytes(seed, v)%internSlots]
	if *slot == string(v) {
		return *slot
	}
	*slot = string(v)
	return *slot
}
