package assist

import (
	"fmt"
	"testing"
)

// benchLines are 1,000 event lines shaped like a packet's: hex ids, times,
// addresses, paths and commands.
func benchLines() []string {
	lines := make([]string, 1000)
	for i := range lines {
		lines[i] = fmt.Sprintf("%016x 2026-07-21T10:%02d:%02d.%03dZ agent-%d proc_exec allow | 10.0.%d.%d:%d | execve pid=%d /usr/bin/curl -s http://10.0.%d.%d:%d/v1/upload?part=%d -o /tmp/.cache/%08x",
			uint64(i)*0x9e3779b97f4a7c15, i/60%60, i%60, i%1000, i%13, i%256, i*7%256, 8000+i%1000, 4000+i, i%256, i*7%256, 8000+i%1000, i, i*2654435761)
	}
	return lines
}

// BenchmarkCountLines is the cost of counting one line-by-line budget of
// BuildPacket over 1,000 events, with the estimate and with o200k_base
// (the encoding loaded before the timer starts).
func BenchmarkCountLines(b *testing.B) {
	lines := benchLines()
	for _, tok := range []Tokenizer{{}, EncodingTokenizer("o200k_base")} {
		b.Run(tok.Name(), func(b *testing.B) {
			for b.Loop() {
				for _, l := range lines {
					tok.Count(l)
				}
			}
		})
	}
}

// BenchmarkLoadEncoding is the first use of an OpenAI encoding in a
// process: reading its embedded vocabulary. Run it with -test.benchtime 1x
// in a fresh process; later uses are cached.
func BenchmarkLoadEncoding(b *testing.B) {
	for b.Loop() {
		if !EncodingTokenizer("o200k_base").Exact() {
			b.Fatal("o200k_base did not load")
		}
	}
}
