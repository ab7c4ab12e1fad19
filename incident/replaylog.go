package incident

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/klauspost/compress/s2"

	"github.com/cordon-ir/cordon/evidence"
)

// The replay log (engine/events.log) holds the stored events in time
// order, in the binary form of evidence.AppendEvent, compressed in chunks:
// what a replay reads instead of decoding every event back from the
// index. It is written by an ingest from the events it stored (intake.go),
// and by the replay that reads the index (a follow's first, a --recompute,
// one after an ingest that could not write it), and read by every
// replay after it while the index has not changed since: its meta
// (engine/events.json) records the index's generation
// (evidence.Generationer), which every write of events changes (in the
// same atomic step in the index; on VictoriaLogs, "" from before a write
// goes out until it is settled), and the evidence key besides. A log of another
// generation, damaged, or cut short is not read: the replay reads the
// index and writes the log again, and says why (Workspace.ReplayFrom).
// It is derived data: deleting it costs the next replay its speed,
// nothing else.

const (
	replayLogFile  = "events.log"
	replayMetaFile = "events.json"
	replayLogMagic = "cordon replay log\n"
	// replayChunk is how many bytes of encoded events a chunk holds
	// before it is compressed.
	replayChunk = 1 << 20
	// replayVersion names the file's layout (the events' form is
	// evidence.EventCodec).
	replayVersion = "replay/1"
)

// replayMeta says what the log is of.
type replayMeta struct {
	Version    string `json:"version"`
	Codec      string `json:"codec"`
	Mapping    int    `json:"mapping_version"`
	Generation string `json:"generation"`
	Evidence   string `json:"evidence"`
	Events     int64  `json:"events"`
	Bytes      int64  `json:"bytes"`
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// logWriter writes a replay log to a temporary file beside its place; the
// chunks are compressed and written on a goroutine of their own.
type logWriter struct {
	f      *os.File
	path   string // where it goes when done
	extend bool   // f is the log at path, written on at its end
	buf    []byte // the chunk being filled
	n      int64  // events written
	chunks chan []byte
	done   chan error
	free   chan []byte
}

// newLogWriter starts a new log in dir.
func newLogWriter(dir string) (*logWriter, error) {
	return newLogFile(dir, replayLogFile)
}

// newLogFile starts a file of the log's form, dir/name once it ends.
func newLogFile(dir, name string) (*logWriter, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, name+".*")
	if err != nil {
		return nil, err
	}
	if _, err := f.WriteString(replayLogMagic); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return startLogWriter(f, filepath.Join(dir, name), false), nil
}

// extendLogWriter writes more events at the end of dir's log, which meta
// must describe.
func extendLogWriter(dir string, meta replayMeta) (*logWriter, error) {
	path := filepath.Join(dir, replayLogFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || fi.Size() != meta.Bytes {
		f.Close()
		return nil, fmt.Errorf("the replay log is not the one its meta describes")
	}
	l := startLogWriter(f, path, true)
	l.n = meta.Events
	return l, nil
}

func startLogWriter(f *os.File, path string, extend bool) *logWriter {
	l := &logWriter{f: f, path: path, extend: extend, chunks: make(chan []byte, 2),
		done: make(chan error, 1), free: make(chan []byte, 3)}
	go l.write(l.chunks)
	return l
}

func (l *logWriter) write(chunks <-chan []byte) {
	w := bufio.NewWriterSize(l.f, 1<<20)
	var err error
	var comp []byte
	for chunk := range chunks {
		if err == nil {
			comp = s2.Encode(comp[:cap(comp)], chunk)
			var head [8]byte
			binary.LittleEndian.PutUint32(head[:4], uint32(len(comp)))
			binary.LittleEndian.PutUint32(head[4:], crc32.Checksum(comp, crcTable))
			if _, err = w.Write(head[:]); err == nil {
				_, err = w.Write(comp)
			}
		}
		select {
		case l.free <- chunk[:0]:
		default:
		}
	}
	if err == nil {
		err = w.Flush()
	}
	l.done <- err
}

// add appends ev to the log.
func (l *logWriter) add(ev *evidence.Event) {
	if l.buf == nil {
		select {
		case l.buf = <-l.free:
		default:
			l.buf = make([]byte, 0, replayChunk+64<<10)
		}
	}
	l.buf = evidence.AppendEvent(l.buf, ev)
	l.n++
	if len(l.buf) >= replayChunk {
		l.chunks <- l.buf
		l.buf = nil
	}
}

// finish writes what is left, puts the log in its place and then its meta
// (both by rename: a crash leaves the old pair, or a log whose meta does
// not describe it, which is not read).
func (l *logWriter) finish(meta replayMeta) error {
	size, err := l.end(true)
	if err != nil {
		return err
	}
	meta.Events, meta.Bytes = l.n, size
	return writeReplayMeta(filepath.Dir(l.path), meta)
}

// writeReplayMeta puts meta in dir, by rename.
func writeReplayMeta(dir string, meta replayMeta) error {
	b, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, replayMetaFile), b)
}

// end writes what is left, synced when sync says, and puts a new file in
// its place; it returns the file's size.
func (l *logWriter) end(sync bool) (int64, error) {
	if len(l.buf) > 0 {
		l.chunks <- l.buf
	}
	close(l.chunks)
	l.chunks = nil
	err := <-l.done
	if err == nil && sync {
		err = l.f.Sync()
	}
	var size int64
	if err == nil {
		var fi os.FileInfo
		if fi, err = l.f.Stat(); err == nil {
			size = fi.Size()
		}
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && !l.extend {
		err = os.Rename(l.f.Name(), l.path)
	}
	if err != nil && !l.extend {
		_ = os.Remove(l.f.Name())
	}
	return size, err
}

// abandon drops the log being written (a log being extended is left
// longer than its meta says, and so is not read).
func (l *logWriter) abandon() {
	if l.chunks != nil {
		close(l.chunks)
		<-l.done
		l.chunks = nil
	}
	_ = l.f.Close()
	if !l.extend {
		_ = os.Remove(l.f.Name())
	}
}

// readReplayMeta reads the log's meta; an error when there is none or it
// cannot be read.
func readReplayMeta(dir string) (replayMeta, error) {
	var m replayMeta
	b, err := os.ReadFile(filepath.Join(dir, replayMetaFile))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("replay log meta: %w", err)
	}
	return m, nil
}

// errReplayLog: the log is damaged (a chunk's checksum, length or events
// do not hold).
var errReplayLog = errors.New("the replay log is damaged")

// eachLogged calls fn with every event of the log at path, in its order.
// The chunks are read, checked, decompressed and decoded on a goroutine
// of their own, one chunk ahead of fn: a chunk's thousands of decoded
// events wait in memory, and four chunks ahead made no replay measurably
// faster, where one ahead keeps 20 to 60 MB less at ten million events
// (docs/performance.md). want is how many events the meta says it holds:
// fewer or more is a damaged log. dec decodes them, leaving out what its
// options say (a zero decoder: nothing).
func eachLogged(ctx context.Context, path string, want int64, dec evidence.EventDecoder, fn func(evidence.Event) error) error {
	c, err := openLogCursor(ctx, path, want, 0, 1, dec)
	if err != nil {
		return err
	}
	// fn takes each event by value and copies what it keeps: a batch
	// gone past comes back to be decoded into again
	for c.next() {
		if err := fn(*c.ev()); err != nil {
			c.close()
			return err
		}
	}
	if err := c.close(); err != nil {
		return err
	}
	return ctx.Err()
}

// logCursor reads a file of the log's form an event at a time, its
// chunks decoded on a goroutine of their own a chunk ahead: the merge of
// an ingest's runs reads several side by side.
type logCursor struct {
	f       *os.File
	cancel  context.CancelFunc
	batches chan []evidence.Event
	free    chan []evidence.Event
	errc    chan error
	evs     []evidence.Event
	i       int
	n, want int64 // events read, and how many the file holds
	rank    int   // of cursors at events alike, the lower rank's comes first
}

// openLogCursor opens the file at path, which holds want events, and
// decodes up to ahead chunks ahead of the reader with dec (eachLogged).
func openLogCursor(ctx context.Context, path string, want int64, rank, ahead int, dec evidence.EventDecoder) (*logCursor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &logCursor{f: f, cancel: cancel, batches: make(chan []evidence.Event, ahead), free: make(chan []evidence.Event, ahead+1),
		errc: make(chan error, 1), want: want, rank: rank}
	go func() {
		defer close(c.batches)
		c.errc <- decodeLog(ctx, bufio.NewReaderSize(f, 1<<20), fi.Size(), c.batches, c.free, dec)
	}()
	return c, nil
}

// next moves to the next event (the one before it is handed back to be
// decoded into); false at the end.
func (c *logCursor) next() bool {
	c.i++
	for c.i >= len(c.evs) {
		if c.evs != nil {
			select {
			case c.free <- c.evs[:0]:
			default:
			}
		}
		evs, ok := <-c.batches
		if !ok {
			c.evs = nil
			return false
		}
		c.evs, c.i = evs, 0
	}
	c.n++
	return true
}

// ev is the event the cursor is at, until next.
func (c *logCursor) ev() *evidence.Event { return &c.evs[c.i] }

// close stops the reading; once the file was read to its end, it says
// whether it held what it should. It may be called again.
func (c *logCursor) close() error {
	if c.f == nil {
		return nil
	}
	c.cancel()
	for range c.batches {
	}
	err := <-c.errc
	c.f.Close()
	c.f = nil
	if err == nil && c.n != c.want {
		err = fmt.Errorf("%w: %d events, %d expected", errReplayLog, c.n, c.want)
	}
	return err
}

// decodeLog sends the log's events in batches of a chunk each. A chunk is
// about replayChunk bytes, or one event when that is bigger (a hostile
// record's megabytes): no chunk is longer than the file, size.
func decodeLog(ctx context.Context, r *bufio.Reader, size int64, out chan<- []evidence.Event, free <-chan []evidence.Event,
	dec evidence.EventDecoder) error {
	magic := make([]byte, len(replayLogMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != replayLogMagic {
		return fmt.Errorf("%w: no header", errReplayLog)
	}
	var comp, plain []byte
	for {
		var head [8]byte
		if _, err := io.ReadFull(r, head[:]); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%w: %v", errReplayLog, err)
		}
		n := binary.LittleEndian.Uint32(head[:4])
		if int64(n) > size {
			return fmt.Errorf("%w: a chunk of %d bytes in a file of %d", errReplayLog, n, size)
		}
		if cap(comp) < int(n) {
			comp = make([]byte, n)
		}
		comp = comp[:n]
		if _, err := io.ReadFull(r, comp); err != nil {
			return fmt.Errorf("%w: %v", errReplayLog, err)
		}
		if crc32.Checksum(comp, crcTable) != binary.LittleEndian.Uint32(head[4:]) {
			return fmt.Errorf("%w: a chunk's checksum", errReplayLog)
		}
		var err error
		if plain, err = s2.Decode(plain[:cap(plain)], comp); err != nil {
			return fmt.Errorf("%w: %v", errReplayLog, err)
		}
		var evs []evidence.Event
		select {
		case evs = <-free:
		default:
			evs = make([]evidence.Event, 0, len(plain)/256+1)
		}
		for b := plain; len(b) > 0; {
			// a reused batch's event is decoded over, not cleared first:
			// Decode writes every field
			evs = slices.Grow(evs, 1)[:len(evs)+1]
			if b, err = dec.Decode(b, &evs[len(evs)-1]); err != nil {
				return fmt.Errorf("%w: %v", errReplayLog, err)
			}
		}
		select {
		case out <- evs:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
