// Command gen writes the evidence files of cordon's sample incidents.
//
//	go run ./sample-incidents/gen            # from the repository root
//	go run ./sample-incidents/gen -out DIR   # somewhere else
//
// Every scenario has fixed times and its own fixed random seed, so the output
// is byte-identical from run to run. The READMEs beside the evidence are
// written by hand and quote times and ids from this output.
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
}

func main() {
	out := flag.String("out", "sample-incidents", "directory holding the scenario folders")
	flag.Parse()
	if st, err := os.Stat(*out); err != nil || !st.IsDir() {
		fmt.Fprintf(os.Stderr, "gen: %s is not a directory; run from the repository root or pass -out\n", *out)
		os.Exit(2)
	}
	for _, sc := range scenarios {
		w := &world{rnd: rand.New(rand.NewSource(sc.seed)), files: map[string][]line{}, callN: 100, pace: [2]int{70, 220}}
		sc.build(w)
		counts, err := w.write(filepath.Join(*out, sc.dir))
		if err != nil {
			fmt.Fprintf(os.Stderr, "gen: %s: %v\n", sc.dir, err)
			os.Exit(1)
		}
		fmt.Printf("%-24s %s\n", sc.dir, counts)
	}
}

type line struct {
	t   time.Time
	seq int
	s   string
}

// world holds one scenario's output while it is being built.
type world struct {
	rnd   *rand.Rand
	day   time.Time
	files map[string][]line
	seq   int
	callN int
	pace  [2]int // think time of ordinary work, seconds
}

func (w *world) emit(file string, t time.Time, s string) {
	w.seq++
	w.files[file] = append(w.files[file], line{t, w.seq, s})
}

// write sorts every file by the time its source writes it and saves it.
func (w *world) write(dir string) (string, error) {
	names := make([]string, 0, len(w.files))
	for n := range w.files {
		names = append(names, n)
	}
	sort.Strings(names)
	var counts []string
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
		for _, l := range ls {
			b.WriteString(l.s)
			b.WriteByte('\n')
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
	return fmt.Sprintf("total=%d %s", total, strings.Join(counts, " ")), nil
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
