// Command gen writes the evidence files of cordon's sample incidents.
//
//	go run ./sample-incidents/gen            # from the repository root
//	go run ./sample-incidents/gen -out DIR   # somewhere else
//
// Every scenario has fixed times and its own fixed random seed, so the output
// is byte-identical from run to run. Beside the evidence it writes truth.yaml,
// the ground truth of every proxy and sensor line (see truth.go). The READMEs
// are written by hand and quote times and ids from this output.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// scenario builds one incident into w.
type scenario struct {
	dir   string
	seed  int64
	build func(w *world)
}

var scenarios = []scenario{
	{"egress-probe-exfil", 721, buildEgress},
	{"credential-theft", 811, buildCreds},
	{"persistence-after-kill", 902, buildPersist},
	{"busy-benign", 1006, buildBusy},
	{"shared-volume-token", 923, buildShared},
	{"cloud-key-after-kill", 1014, buildCloud},
	{"eval-run-canaries", 1006, buildEvalRun},
	{"eval-run-sweep", 1117, buildSweep},
	{"eval-run-contained", 1124, buildContained},
	{"eval-run-kill", 1125, buildKillRun},
}

func main() {
	out := flag.String("out", "sample-incidents", "directory holding the scenario folders")
	flag.Parse()
	if st, err := os.Stat(*out); err != nil || !st.IsDir() {
		fmt.Fprintf(os.Stderr, "gen: %s is not a directory; run from the repository root or pass -out\n", *out)
		os.Exit(2)
	}
	counts, err := generate(*out)
	for _, c := range counts {
		fmt.Println(c)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}

// generate writes every scenario's evidence and truth.yaml under root.
func generate(root string) ([]string, error) {
	var counts []string
	for _, sc := range scenarios {
		w := &world{rnd: rand.New(rand.NewSource(sc.seed)), files: map[string][]line{}, callN: 100, pace: [2]int{70, 220}}
		sc.build(w)
		c, err := w.write(filepath.Join(root, sc.dir), sc.dir)
		if err != nil {
			return counts, fmt.Errorf("%s: %v", sc.dir, err)
		}
		counts = append(counts, fmt.Sprintf("%-24s %s", sc.dir, c))
	}
	return counts, nil
}

type line struct {
	t   time.Time
	seq int
	s   string
	by  who // who made it (proxy and sensor records)
}

// world holds one scenario's output while it is being built.
type world struct {
	rnd   *rand.Rand
	day   time.Time
	files map[string][]line
	seq   int
	callN int
	pace  [2]int // think time of ordinary work, seconds

	sessions []*session
	findings []finding

	// What a deployment's sensors add to the shared defaults: file names
	// the sensitive-files lists match anywhere, and the prefixes Falco's
	// exception for sandbox-agentd is scoped to (nil: it trusts it everywhere).
	sensitiveNames []string
	agentdScope    []string
	// watched replaces the path prefixes sensitive-files covers on every
	// node of the shared deployment (nil: those).
	watched []string

	// egressIP is the address sandboxes leave the lab from, as a cloud's
	// audit log sees them (session_start sandbox.egress_ip; "" to omit).
	egressIP string
	// trail holds the CloudTrail records until flushTrail delivers them.
	trail []trailRec
}

func (w *world) emit(file string, t time.Time, s string, by who) {
	w.seq++
	w.files[file] = append(w.files[file], line{t, w.seq, s, by})
}

// attributed reports whether a file's records get a truth entry.
func attributed(file string) bool {
	return strings.HasPrefix(file, "proxy/") || strings.HasPrefix(file, "sensor/")
}

// write sorts every file by the time its source writes it and saves it, and
// truth.yaml with the truth of every proxy and sensor line.
func (w *world) write(dir, name string) (string, error) {
	names := make([]string, 0, len(w.files))
	for n := range w.files {
		names = append(names, n)
	}
	sort.Strings(names)
	var counts []string
	var recs [][2]string
	var entries []kv
	total := 0
	for _, n := range names {
		ls := w.files[n]
		sort.SliceStable(ls, func(i, j int) bool {
			if !ls[i].t.Equal(ls[j].t) {
				return ls[i].t.Before(ls[j].t)
			}
			return ls[i].seq < ls[j].seq
		})
		var b strings.Builder
		for i, l := range ls {
			b.WriteString(l.s)
			b.WriteByte('\n')
			switch {
			case attributed(n) && !l.by.set:
				return "", fmt.Errorf("%s:%d has no ground truth", n, i+1)
			case attributed(n):
				entries = append(entries, kv{fmt.Sprintf("%s:%d", n, i+1), w.entry(l.t, l.by)})
			case l.by.set:
				return "", fmt.Errorf("%s:%d: ground truth on a ledger record", n, i+1)
			}
		}
		if attributed(n) {
			recs = append(recs, [2]string{n, strconv.Itoa(len(ls))})
		}
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			return "", err
		}
		counts = append(counts, fmt.Sprintf("%s=%d", n, len(ls)))
		total += len(ls)
	}
	p := filepath.Join(dir, "truth.yaml")
	if err := os.WriteFile(p, []byte(w.truthYAML(name, recs, entries)), 0o644); err != nil {
		return "", err
	}
	return fmt.Sprintf("total=%d %s truth=%d findings=%d", total, strings.Join(counts, " "), len(entries), len(w.findings)), nil
}

// at is a time of the scenario's day, "15:04:05" or "15:04:05.000".
func (w *world) at(hms string) time.Time {
	layout := "15:04:05"
	if strings.Contains(hms, ".") {
		layout = "15:04:05.000"
	}
	c, err := time.Parse(layout, hms)
	if err != nil {
		panic(err)
	}
	return w.day.Add(time.Duration(c.Hour())*time.Hour + time.Duration(c.Minute())*time.Minute +
		time.Duration(c.Second())*time.Second + time.Duration(c.Nanosecond()))
}

func (w *world) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[w.rnd.Intn(16)]
	}
	return string(b)
}

func (w *world) uuid() string {
	h := w.hex(32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
}

func (w *world) digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func (w *world) pick(xs []string) string { return xs[w.rnd.Intn(len(xs))] }

func (w *world) image(repo, tag string) image {
	return image{repo: repo, tag: tag, digest: w.digest(repo + ":" + tag)}
}
