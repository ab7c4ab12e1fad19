package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cordon-ir/cordon/fleet"
	"github.com/klauspost/compress/s2"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Receipts: every verdict a watcher keeps is appended to a hash chain of
// its own, the subject cordon.receipts.<watcher> of the stream
// CORDON_RECEIPTS. A receipt carries the sha256 of the previous one's
// body, so an edited, removed or inserted receipt breaks the chain at the
// next one. The receipts of one group commit are one message, a receipt
// a line (a chain written one receipt a message reads the same way),
// compressed with S2 (header Cordon-Encoding: s2): a window's receipts
// repeat the same few verdicts, and the server storing 7 KB a refusal
// uncompressed was half of what a refusal's receipt cost its latency.

// Defaults of the receipts.
const (
	DefaultReceiptsStream = "CORDON_RECEIPTS"
	ReceiptsPrefix        = "cordon.receipts."
	// DefaultCommitEvery is the longest a receipt waits after its reply
	// before the batch it is in is sent: what a crash may lose.
	DefaultCommitEvery = 100 * time.Millisecond
	receiptsMaxBatch   = 512
	// receiptsMaxMsg bounds a message of receipts as stored, under the
	// server's default max_payload (1 MiB): a window that compresses to
	// more is sent in parts (of at most half the server's max_payload,
	// when that is smaller); receiptsMaxWindow bounds a window's receipts
	// before compression
	receiptsMaxMsg    = 256 << 10
	receiptsMaxWindow = 4 << 20
	// encodingHeader names how a message of receipts is compressed
	encodingHeader = "Cordon-Encoding"
	encodingS2     = "s2"
	receiptSchema  = "receipt/1"
	// receiptRequestMax is the largest request a receipt holds as sent;
	// a larger one is kept as its size and sha256
	receiptRequestMax = 16 << 10
)

// ReceiptSubject is the subject of a watcher's receipts.
func ReceiptSubject(watcher string) string { return ReceiptsPrefix + fleet.Token(watcher) }

// Receipt is one verdict as it was given.
type Receipt = receipt[Verdict]

// receipt is a receipt with its verdict as V: a Verdict as read back, or
// the bytes the caller was sent as written (json.RawMessage).
type receipt[V any] struct {
	Schema  string `json:"schema"`
	Watcher string `json:"watcher"`
	// Seq is its place in the watcher's chain, from 1.
	Seq uint64 `json:"seq"`
	// Prev is the sha256 (hex) of the previous receipt's body; "" for the
	// first.
	Prev    string          `json:"prev"`
	Subject string          `json:"subject"`
	Request json.RawMessage `json:"request,omitempty"`
	Verdict V               `json:"verdict"`
	// SkippedAllows counts the allows given since the previous receipt
	// that sampling did not keep.
	SkippedAllows int64 `json:"skipped_allows,omitempty"`
}

// EnsureReceiptsStream creates the receipts' stream if it is missing.
func EnsureReceiptsStream(ctx context.Context, js jetstream.JetStream, name string) error {
	_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        name,
		Description: "cordon verdict receipts, a hash chain per watcher",
		Subjects:    []string{ReceiptsPrefix + ">"},
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return fmt.Errorf("receipts stream %s: %w", name, err)
	}
	return nil
}

// pending is a verdict waiting for its receipt to be written; reply is
// the verdict as the caller was sent it (nil: encode verdict).
type pending struct {
	subject string
	request []byte
	verdict Verdict
	reply   []byte
	skipped int64
}

// chain appends receipts for one watcher.
type chain struct {
	js      jetstream.JetStream
	stream  string
	watcher string
	subject string
	seq     uint64 // the last receipt's Seq
	prev    string // the last receipt's hash
	last    uint64 // the last receipt's stream sequence
	maxMsg  int    // the most bytes of receipts a message holds
	buf     []byte // a window's buffer, kept for the next one
	zbuf    []byte // and its compressed form
}

// openChain finds where a watcher's chain ends.
func openChain(ctx context.Context, js jetstream.JetStream, stream, watcher string) (*chain, error) {
	if err := EnsureReceiptsStream(ctx, js, stream); err != nil {
		return nil, err
	}
	c := &chain{js: js, stream: stream, watcher: watcher, subject: ReceiptSubject(watcher), maxMsg: receiptsMaxMsg}
	if mp := int(js.Conn().MaxPayload()); mp > 0 {
		c.maxMsg = min(c.maxMsg, mp/2)
	}
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return nil, err
	}
	m, err := s.GetLastMsgForSubject(ctx, c.subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("receipts of %s: %w", watcher, err)
	}
	lines, err := MessageLines(m.Header, m.Data)
	if err != nil {
		return nil, fmt.Errorf("receipts of %s: the last message (stream sequence %d): %w", watcher, m.Sequence, err)
	}
	var r Receipt
	if len(lines) == 0 {
		return nil, fmt.Errorf("receipts of %s: the last message (stream sequence %d) holds none", watcher, m.Sequence)
	}
	last := lines[len(lines)-1]
	if err := json.Unmarshal(last, &r); err != nil {
		return nil, fmt.Errorf("receipts of %s: the last one (stream sequence %d) does not read: %w", watcher, m.Sequence, err)
	}
	c.seq, c.prev, c.last = r.Seq, Hash(last), m.Sequence
	return c, nil
}

// window is a group of receipts committed together: their lines are
// gathered and sent as one compressed message when the window closes (in
// parts of at most receiptsMaxMsg when it compresses to more), each
// published on the condition that the chain's last message is still the
// subject's last, so two writers of one chain fail rather than fork it.
type window struct {
	c   *chain
	buf []byte
}

func (c *chain) window() *window {
	if c.buf == nil {
		c.buf = make([]byte, 0, receiptsMaxWindow+receiptRequestMax)
	}
	return &window{c: c, buf: c.buf[:0]}
}

// add appends p's receipt to the chain; a window grown past
// receiptsMaxWindow sends what it has first.
func (w *window) add(ctx context.Context, p pending) error {
	c := w.c
	verdict := json.RawMessage(p.reply) // the bytes the caller was sent, not encoded again
	if verdict == nil {
		b, err := json.Marshal(p.verdict)
		if err != nil {
			return err
		}
		verdict = b
	}
	r := receipt[json.RawMessage]{Schema: receiptSchema, Watcher: c.watcher, Seq: c.seq + 1, Prev: c.prev, Subject: p.subject,
		Request: json.RawMessage(p.request), SkippedAllows: p.skipped} // the verdict goes in as it is (appendReceipt)
	switch {
	case len(p.request) > receiptRequestMax:
		// a request near the server's max_payload would make its receipt
		// too big to send: its size and digest stand for it
		r.Request, _ = json.Marshal(map[string]any{"truncated": true, "bytes": len(p.request), "sha256": Hash(p.request)})
	case len(p.request) == 0 || !json.Valid(p.request):
		r.Request = nil
		if len(p.request) > 0 {
			b, _ := json.Marshal(string(p.request))
			r.Request = b
		}
	}
	head, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if len(w.buf) > 0 && len(w.buf)+len(head)+len(verdict) >= receiptsMaxWindow {
		if err := w.send(ctx); err != nil {
			return err
		}
	}
	start := len(w.buf)
	w.buf = append(appendReceipt(w.buf, head, verdict), '\n')
	c.seq, c.prev = r.Seq, Hash(w.buf[start:len(w.buf)-1])
	return nil
}

// verdictNull is how a receipt without its verdict encodes the field.
var verdictNull = []byte(`"verdict":null`)

// appendReceipt appends to dst the receipt head encodes (json.Marshal of
// it with a nil Verdict) with verdict in the verdict's place: the bytes
// json.Marshal gives with the verdict set, as long as verdict is
// json.Marshal's own output (compact and escaped) — a reply this watcher
// encoded. Compacting that again, 7 KB a refusal, was most of what a
// receipt cost. Only skipped_allows, a number, comes after the verdict,
// so its last "verdict":null is the field, whatever the request holds.
func appendReceipt(dst, head, verdict []byte) []byte {
	i := bytes.LastIndex(head, verdictNull)
	dst = append(dst, head[:i+len(verdictNull)-len("null")]...)
	dst = append(dst, verdict...)
	return append(dst, head[i+len(verdictNull):]...)
}

// send publishes the receipts gathered, compressed, and waits for the
// server to take them: one message, or parts of whole lines each under
// maxMsg compressed when the whole is not.
func (w *window) send(ctx context.Context) error {
	if len(w.buf) == 0 {
		return nil
	}
	c := w.c
	c.zbuf = s2.Encode(c.zbuf[:cap(c.zbuf)], w.buf)
	if len(c.zbuf) <= c.maxMsg {
		if err := c.publish(ctx, c.zbuf, c.prev); err != nil {
			return err
		}
	} else {
		for part := range parts(w.buf, c.maxMsg) {
			lines := Lines(part)
			c.zbuf = s2.Encode(c.zbuf[:cap(c.zbuf)], part)
			if err := c.publish(ctx, c.zbuf, Hash(lines[len(lines)-1])); err != nil {
				return err
			}
		}
	}
	w.buf = w.buf[:0] // the client has copied it
	c.buf = w.buf
	return nil
}

// publish sends one message of receipts, compressed, whose last receipt
// hashes to last (its Nats-Msg-Id), on the condition that the chain's
// last message is still the subject's last.
func (c *chain) publish(ctx context.Context, data []byte, last string) error {
	m := nats.NewMsg(c.subject)
	m.Header.Set(encodingHeader, encodingS2)
	m.Data = data
	ack, err := c.js.PublishMsg(ctx, m, jetstream.WithMsgID(last), jetstream.WithExpectLastSequencePerSubject(c.last))
	if err != nil {
		return fmt.Errorf("receipts up to %d: %w", c.seq, err)
	}
	c.last = ack.Sequence
	return nil
}

// parts splits lines (each ending in a newline) into runs of whole lines
// of at most limit bytes, a longer line alone; S2 never makes a part much
// bigger than it is.
func parts(lines []byte, limit int) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for len(lines) > 0 {
			n := 0
			for n < len(lines) {
				end := len(lines)
				if i := bytes.IndexByte(lines[n:], '\n'); i >= 0 {
					end = n + i + 1
				}
				if n > 0 && end > limit {
					break
				}
				n = end
			}
			if !yield(lines[:n]) {
				return
			}
			lines = lines[n:]
		}
	}
}

// maxReceiptsMessage bounds what a message of receipts may hold once
// decompressed: a window's bound with room to spare.
const maxReceiptsMessage = 4 * receiptsMaxWindow

// MessageLines are the receipts of one message of a chain, as stored:
// decompressed when its header says so.
func MessageLines(h nats.Header, data []byte) ([][]byte, error) {
	switch enc := h.Get(encodingHeader); enc {
	case "":
	case encodingS2:
		n, err := s2.DecodedLen(data)
		if err != nil {
			return nil, fmt.Errorf("receipts do not decompress: %w", err)
		}
		if n > maxReceiptsMessage {
			return nil, fmt.Errorf("receipts would decompress to %d bytes, more than %d", n, maxReceiptsMessage)
		}
		if data, err = s2.Decode(nil, data); err != nil {
			return nil, fmt.Errorf("receipts do not decompress: %w", err)
		}
	default:
		return nil, fmt.Errorf("receipts in an encoding cordon does not read: %q", enc)
	}
	return Lines(data), nil
}

// wait sends what the window holds and waits for the server to take it.
func (w *window) wait(ctx context.Context) error { return w.send(ctx) }

// Lines are the receipts of one message of a chain, as stored.
func Lines(data []byte) [][]byte {
	var out [][]byte
	for line := range bytes.Lines(data) {
		if line = bytes.TrimSuffix(line, []byte("\n")); len(line) > 0 {
			out = append(out, line)
		}
	}
	return out
}

// commit writes a batch of receipts, in order, as one window.
func (c *chain) commit(ctx context.Context, batch []pending) error {
	w := c.window()
	for _, p := range batch {
		if err := w.add(ctx, p); err != nil {
			return err
		}
	}
	return w.wait(ctx)
}

// ErrChainBroken says a chain of receipts does not verify.
var ErrChainBroken = errors.New("the receipts' chain is broken")

// Break is a place where a chain does not hold.
type Break struct {
	StreamSeq uint64 `json:"stream_seq"`
	Seq       uint64 `json:"seq"`
	Problem   string `json:"problem"`
}

// ChainReport is what VerifyReceipts found.
type ChainReport struct {
	Watcher  string    `json:"watcher"`
	Receipts int       `json:"receipts"`
	Refused  int       `json:"refused"`
	Reviewed int       `json:"reviewed"`
	Allowed  int       `json:"allowed"`
	Skipped  int64     `json:"skipped_allows"`
	Last     string    `json:"last,omitempty"` // the last receipt's hash: keep it to notice a later truncation
	Breaks   []Break   `json:"breaks"`
	First    time.Time `json:"first,omitzero"`
	Until    time.Time `json:"until,omitzero"`
}

// VerifyReceipts reads a watcher's chain from its start and reports every
// break: a receipt that does not read, one whose seq is not the next, one
// whose prev is not the hash of the receipt before it.
func VerifyReceipts(ctx context.Context, js jetstream.JetStream, stream, watcher string) (ChainReport, error) {
	rep := ChainReport{Watcher: watcher, Breaks: []Break{}}
	var seq uint64
	prev := ""
	err := eachMessage(ctx, js, stream, watcher, func(streamSeq uint64, lines [][]byte, err error) {
		switch {
		case err != nil:
			rep.Breaks = append(rep.Breaks, Break{StreamSeq: streamSeq, Problem: err.Error()})
		case len(lines) == 0:
			rep.Breaks = append(rep.Breaks, Break{StreamSeq: streamSeq, Problem: "a message that holds no receipt"})
		}
		for _, line := range lines {
			prev, seq = rep.check(streamSeq, line, prev, seq)
		}
	})
	rep.Last = prev
	return rep, err
}

// FindReceipts reads a watcher's chain from its start and returns the
// receipts match accepts, and how many lines (or messages) did not read
// as receipts (verify names them).
func FindReceipts(ctx context.Context, js jetstream.JetStream, stream, watcher string, match func(*Receipt) bool) (found []Receipt, unreadable int, err error) {
	err = eachMessage(ctx, js, stream, watcher, func(_ uint64, lines [][]byte, err error) {
		if err != nil {
			unreadable++
		}
		for _, line := range lines {
			var r Receipt
			if json.Unmarshal(line, &r) != nil {
				unreadable++
				continue
			}
			if match(&r) {
				found = append(found, r)
			}
		}
	})
	return found, unreadable, err
}

// eachMessage gives fn every message of a watcher's receipts, in order,
// split into its lines, or why it does not read.
func eachMessage(ctx context.Context, js jetstream.JetStream, stream, watcher string, fn func(streamSeq uint64, lines [][]byte, err error)) error {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return fmt.Errorf("receipts stream %s: %w", stream, err)
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(ReceiptSubject(watcher)))
	if err != nil {
		return err
	}
	want := info.State.Subjects[ReceiptSubject(watcher)]
	if want == 0 {
		return nil
	}
	cons, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{ReceiptSubject(watcher)}})
	if err != nil {
		return err
	}
	for n := uint64(0); n < want; n++ {
		m, err := cons.Next(jetstream.FetchContext(ctx))
		if err != nil {
			return fmt.Errorf("reading receipts: %w", err)
		}
		md, err := m.Metadata()
		if err != nil {
			return err
		}
		lines, err := MessageLines(m.Headers(), m.Data())
		fn(md.Sequence.Stream, lines, err)
	}
	return nil
}

// check adds one receipt of a chain to the report, after the receipt
// whose hash is prev and seq is seq, and returns its own.
func (rep *ChainReport) check(streamSeq uint64, line []byte, prev string, seq uint64) (string, uint64) {
	rep.Receipts++
	var r Receipt
	if err := json.Unmarshal(line, &r); err != nil {
		rep.Breaks = append(rep.Breaks, Break{StreamSeq: streamSeq, Problem: "does not read: " + err.Error()})
		return Hash(line), seq + 1
	}
	switch {
	case r.Seq <= seq:
		rep.Breaks = append(rep.Breaks, Break{StreamSeq: streamSeq, Seq: r.Seq,
			Problem: fmt.Sprintf("receipt %d follows receipt %d: appended again or out of place", r.Seq, seq)})
	case r.Seq != seq+1:
		rep.Breaks = append(rep.Breaks, Break{StreamSeq: streamSeq, Seq: r.Seq,
			Problem: fmt.Sprintf("receipt %d follows receipt %d: %d missing", r.Seq, seq, r.Seq-seq-1)})
	case r.Prev != prev:
		rep.Breaks = append(rep.Breaks, Break{StreamSeq: streamSeq, Seq: r.Seq,
			Problem: fmt.Sprintf("prev %.12s is not the hash of the receipt before it (%.12s): it or the one before was changed", r.Prev, prev)})
	}
	switch r.Verdict.Recommendation {
	case Refuse:
		rep.Refused++
	case Review:
		rep.Reviewed++
	default:
		rep.Allowed++
	}
	rep.Skipped += r.SkippedAllows
	if rep.First.IsZero() {
		rep.First = r.Verdict.At
	}
	rep.Until = r.Verdict.At
	return Hash(line), r.Seq
}
