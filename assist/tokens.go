package assist

import (
	"strings"
	"sync"
	"unicode/utf8"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Tokenizer counts tokens as one model's tokenizer does when cordon can
// know it offline (the OpenAI encodings, whose vocabularies are embedded in
// the binary), and otherwise with an estimate that is never below the
// tokenizers it was calibrated on (see estimateTokens). The zero value is
// the estimate.
type Tokenizer struct {
	encoding string // "" for the estimate
	enc      *tiktoken.Tiktoken
}

// Estimate is the tokenizer name of the conservative estimate.
const Estimate = "estimate"

// TokenizerFor returns the tokenizer of model: its OpenAI encoding when
// the model is OpenAI's, else the estimate.
func TokenizerFor(model string) Tokenizer {
	name := openAIEncoding(model)
	if name == "" {
		return Tokenizer{}
	}
	return EncodingTokenizer(name)
}

// EncodingTokenizer returns the tokenizer of an OpenAI encoding
// (o200k_base, cl100k_base), or the estimate for any other name.
func EncodingTokenizer(name string) Tokenizer {
	enc, err := loadEncoding(name)
	if err != nil {
		return Tokenizer{}
	}
	return Tokenizer{encoding: name, enc: enc}
}

// Name is the encoding counted with, or "estimate".
func (t Tokenizer) Name() string {
	if t.enc == nil {
		return Estimate
	}
	return t.encoding
}

// Exact reports whether counts are the model's own tokenizer's.
func (t Tokenizer) Exact() bool { return t.enc != nil }

// Count is how many tokens s is.
func (t Tokenizer) Count(s string) int {
	if t.enc == nil {
		return estimateTokens(s)
	}
	return len(t.enc.EncodeOrdinary(s))
}

// Chat templates wrap each message in role markers (<|im_start|>system …
// <|im_end|> for Qwen, <|start_header_id|> … for Llama 3, 3 tokens for
// OpenAI's) and prime the reply with a few more. These bound them, for
// every template cordon was measured against.
const (
	perMessageTokens = 8
	replyPrimeTokens = 8
)

// CountMessages is how many tokens msgs take in the context, role markers
// included.
func (t Tokenizer) CountMessages(msgs []Message) int {
	n := replyPrimeTokens
	for _, m := range msgs {
		n += perMessageTokens + t.Count(m.Content)
	}
	return n
}

// openAIEncoding is the encoding of an OpenAI model, or "".
func openAIEncoding(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:] // openai/gpt-4o through a router
	}
	switch {
	case strings.HasPrefix(m, "gpt-4o"), strings.HasPrefix(m, "gpt-4.1"), strings.HasPrefix(m, "gpt-4.5"),
		strings.HasPrefix(m, "gpt-5"), strings.HasPrefix(m, "chatgpt-4o"), reasoningModel(m):
		return tiktoken.MODEL_O200K_BASE
	case strings.HasPrefix(m, "gpt-4"), strings.HasPrefix(m, "gpt-3.5"):
		return tiktoken.MODEL_CL100K_BASE
	}
	return ""
}

// Loading an encoding reads a vocabulary of 100-200k entries: done once
// per process and shared, since a Tiktoken is read-only once built.
var (
	loaderOnce sync.Once
	encMu      sync.Mutex
	encodings  = map[string]*tiktoken.Tiktoken{}
)

func loadEncoding(name string) (*tiktoken.Tiktoken, error) {
	// The library's default loader downloads vocabularies at run time;
	// the offline one reads those embedded in the binary.
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })
	encMu.Lock()
	defer encMu.Unlock()
	if e, ok := encodings[name]; ok {
		return e, nil
	}
	e, err := tiktoken.GetEncoding(name)
	if err != nil {
		return nil, err
	}
	encodings[name] = e
	return e, nil
}

// estimateTokens bounds the count of the open models' tokenizers (Qwen,
// Gemma, Llama 3) from above without knowing their vocabularies. Evidence
// is not prose: event ids are 16 hex digits, times and ports are numbers,
// paths and URLs are punctuation-heavy, and tokenizers split all of these
// far finer than bytes/4 (Qwen and Gemma give every digit its own token).
// So the text is read in runs, each priced as the finest of those
// tokenizers splits it; the prices were measured on the sample incidents'
// packets against the real tokenizers (docs/assistant.md, "Token counts").
func estimateTokens(s string) int {
	n := estimateRuns(s)
	// 5% on top: the margin the calibration left on the samples' evidence
	// was 6%, and an incident's text can be finer-grained than theirs.
	return n + n/20
}

func estimateRuns(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			n += nonASCIITokens(r, size)
		case isDigit(c):
			// one token a digit
			n++
			i++
		case isLetter(c):
			j := i
			for j < len(s) && isLetter(s[j]) {
				j++
			}
			n += letterTokens(s[i:j], i > 0 && isDigit(s[i-1]) || j < len(s) && isDigit(s[j]))
			i = j
		case c == ' ':
			// a space joins the word after it; a run of spaces is one more
			j := i
			for j < len(s) && s[j] == ' ' {
				j++
			}
			if j-i > 1 || j == len(s) || !isLetter(s[j]) {
				n++
			}
			i = j
		default:
			n++
			i++
		}
	}
	return n
}

// letterTokens prices a run of ASCII letters. Between digits (the letters
// of a hex id, of a container id) tokenizers break them into pieces of one
// or two letters; a word stands alone is mostly one token for common
// words, one more for every few letters of a rare one.
func letterTokens(w string, inNumber bool) int {
	if inNumber {
		return (len(w) + 1) / 2
	}
	return (len(w) + 7) / 8
}

// nonASCIITokens prices a rune outside ASCII: the punctuation evidence
// carries (…, ‹, ›, quotes) is a token or two; anything else may fall back
// to one token a byte.
func nonASCIITokens(r rune, size int) int {
	if r >= 0x2000 && r <= 0x206f || r >= 0x00a0 && r <= 0x00ff {
		return 2
	}
	return size
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
