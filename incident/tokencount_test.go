package incident_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
)

// The token-count fixture: the exact messages of every task over every
// sample incident, as a model with an 8k context gets them, and their
// counts by real tokenizers. -tokencount.write rewrites the messages;
// assist/testdata/tokencount/count.mjs then counts them (see its README).
var writeTokenTexts = flag.Bool("tokencount.write", false, "rewrite assist/testdata/tokencount/texts.jsonl.gz")

const tokenDir = "../assist/testdata/tokencount"

var tokenSamples = []string{"busy-benign", "cloud-key-after-kill", "credential-theft", "egress-probe-exfil", "persistence-after-kill", "shared-volume-token"}

// tokenText is one line of texts.jsonl.gz.
type tokenText struct {
	Sample   string           `json:"sample"`
	Task     assist.Task      `json:"task"`
	Context  int              `json:"context_tokens"`
	Reply    int              `json:"max_tokens"`
	Messages []assist.Message `json:"messages"`
}

// tokenCount is one entry of counts.json: per message, each tokenizer's
// count of its content.
type tokenCount struct {
	Sample string              `json:"sample"`
	Task   assist.Task         `json:"task"`
	SHA256 string              `json:"sha256"`
	Counts map[string][]int    `json:"counts"`
	Extra  map[string]struct{} `json:"-"`
}

func TestWriteTokenCountTexts(t *testing.T) {
	if !*writeTokenTexts {
		t.Skip("writes the fixture only with -tokencount.write")
	}
	f, err := os.Create(filepath.Join(tokenDir, "texts.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	enc := json.NewEncoder(zw)
	for _, s := range tokenSamples {
		ws := incidenttest.New(t, "../sample-incidents/"+s)
		cfg := assist.Config{BaseURL: "http://127.0.0.1:8080/v1", Model: "local-model", ContextTokens: 8192}
		for _, task := range assist.Tasks() {
			msgs := taskMessages(t, ws, cfg, task)
			if err := enc.Encode(tokenText{Sample: s, Task: task, Context: cfg.Context(), Reply: cfg.ReplyTokens(), Messages: msgs}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

// taskMessages are the messages a task sends for a sample, with the
// question the ask and query tasks take.
func taskMessages(t *testing.T, ws *incident.Workspace, cfg assist.Config, task assist.Task) []assist.Message {
	t.Helper()
	q := ""
	if task == assist.TaskAsk || task == assist.TaskQuery {
		q = "everything the agent did with the stolen token after the kill"
	}
	p, err := ws.AskPacket(context.Background(), cfg, incident.AskRequest{Task: task, Question: q})
	if err != nil {
		t.Fatal(err)
	}
	msgs, _, err := assist.Messages(task, q, p)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// readTokenFixture reads the messages and their counts, matched by digest.
func readTokenFixture(t *testing.T) ([]tokenText, map[string]tokenCount) {
	t.Helper()
	f, err := os.Open(filepath.Join(tokenDir, "texts.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var texts []tokenText
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var tt tokenText
		if err := json.Unmarshal(sc.Bytes(), &tt); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, tt)
	}
	data, err := os.ReadFile(filepath.Join(tokenDir, "counts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var counts []tokenCount
	if err := json.Unmarshal(data, &counts); err != nil {
		t.Fatal(err)
	}
	byDigest := map[string]tokenCount{}
	for _, c := range counts {
		byDigest[c.SHA256] = c
	}
	return texts, byDigest
}

func messagesDigest(msgs []assist.Message) string {
	data, _ := json.Marshal(msgs)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// TestTokenCountsHold checks cordon's counts against the real tokenizers'
// on the committed fixture: the estimate at least each open model's
// tokenizer and at most 1.25 times the largest of them, the OpenAI
// encodings exact.
func TestTokenCountsHold(t *testing.T) {
	texts, counts := readTokenFixture(t)
	if len(texts) < len(tokenSamples)*len(assist.Tasks()) {
		t.Fatalf("the fixture holds %d requests, want one per sample and task", len(texts))
	}
	est := assist.Tokenizer{}
	exact := map[string]assist.Tokenizer{}
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		exact[name] = assist.EncodingTokenizer(name)
		if !exact[name].Exact() {
			t.Fatalf("%s did not load offline", name)
		}
	}
	worst := 0.0
	for _, tt := range texts {
		c, ok := counts[messagesDigest(tt.Messages)]
		if !ok {
			t.Fatalf("%s/%s: no counts for these messages: rerun count.mjs (assist/testdata/tokencount/README.md)", tt.Sample, tt.Task)
		}
		for i, m := range tt.Messages {
			got := est.Count(m.Content)
			largest := 0
			for name, n := range c.Counts {
				if _, ok := exact[name]; ok {
					continue
				}
				largest = max(largest, n[i])
				if got < n[i] {
					t.Errorf("%s/%s message %d: estimate %d below %s's %d", tt.Sample, tt.Task, i, got, name, n[i])
				}
			}
			if float64(got) > 1.25*float64(largest) {
				t.Errorf("%s/%s message %d: estimate %d over 1.25 × the largest count %d", tt.Sample, tt.Task, i, got, largest)
			}
			worst = max(worst, float64(got)/float64(largest))
			for name, tok := range exact {
				if n := tok.Count(m.Content); n != c.Counts[name][i] {
					t.Errorf("%s/%s message %d: %s counts %d, the reference %d", tt.Sample, tt.Task, i, name, n, c.Counts[name][i])
				}
			}
		}
	}
	t.Logf("the estimate is at most %.3f × the largest real count", worst)
}

// TestEightKContextNeverOverflows: with an 8k context and the default
// reply limit, every request cordon builds today, for every task over
// every sample, fits, the chat template's markers included: by the
// estimate (which TestTokenCountsHold shows is at least each open model's
// tokenizer) and by each exact encoding; and, where the committed fixture
// holds the same messages, by each real tokenizer's count. It used to read
// only the fixture, so no change to the packet could make it fail, and a
// request with no counts passed unchecked.
func TestEightKContextNeverOverflows(t *testing.T) {
	texts, counts := readTokenFixture(t)
	fixture := map[string]tokenText{}
	for _, tt := range texts {
		fixture[tt.Sample+"/"+string(tt.Task)] = tt
	}
	tokenizers := map[string]assist.Tokenizer{"estimate": {}}
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		tokenizers[name] = assist.EncodingTokenizer(name)
	}
	fits := func(what string, room int, per []int) {
		t.Helper()
		total := 8 // the reply's priming
		for _, k := range per {
			total += k + 8
		}
		if total > room {
			t.Errorf("%s counts %d tokens, over the %d the context leaves for the request", what, total, room)
		}
	}
	checked, real := 0, 0
	for _, s := range tokenSamples {
		ws := incidenttest.New(t, "../sample-incidents/"+s)
		cfg := assist.Config{BaseURL: "http://127.0.0.1:8080/v1", Model: "local-model", ContextTokens: 8192}
		if cfg.Context() != 8192 {
			t.Fatalf("context %d", cfg.Context())
		}
		room := cfg.Context() - cfg.ReplyTokens()
		for _, task := range assist.Tasks() {
			msgs := taskMessages(t, ws, cfg, task)
			checked++
			for name, tok := range tokenizers {
				per := make([]int, len(msgs))
				for i, m := range msgs {
					per[i] = tok.Count(m.Content)
				}
				fits(s+"/"+string(task)+" by "+name, room, per)
			}
			tt, ok := fixture[s+"/"+string(task)]
			if !ok || messagesDigest(tt.Messages) != messagesDigest(msgs) {
				t.Logf("%s/%s: the fixture's messages are not today's, so only the estimate and the exact encodings hold (rewrite with -tokencount.write, then count.mjs)", s, task)
				continue
			}
			c, ok := counts[messagesDigest(msgs)]
			if !ok {
				t.Errorf("%s/%s: no counts for the fixture's messages: rerun count.mjs (assist/testdata/tokencount/README.md)", s, task)
				continue
			}
			real++
			for name, per := range c.Counts {
				fits(s+"/"+string(task)+" by "+name, room, per)
			}
		}
	}
	if checked < len(tokenSamples)*len(assist.Tasks()) {
		t.Errorf("%d requests checked", checked)
	}
	t.Logf("%d requests checked, %d of them also by the real tokenizers' counts", checked, real)
}
