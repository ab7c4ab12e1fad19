package vlogs_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/evidence/storetest"
	"github.com/cordon-ir/cordon/evidence/vlogs/vlogstest"
)

// The contract through the front node of a cluster of two storage nodes:
// writes are routed to the storage nodes and settled there (the front
// passes the flush on), reads gather from both.
func TestVictoriaLogsClusterKeepsTheContract(t *testing.T) {
	front, nodes := vlogstest.StartCluster(t, 2)
	n := 0
	storetest.Run(t, func(t *testing.T) evidence.Store {
		n++
		return open(t, front, fmt.Sprintf("cluster-%d", n), t.TempDir())
	}, contractEvents(t))

	// what the front serves is what the storage nodes hold, a case spread
	// over both: the front sends a stream's first 1,000 rows to one node,
	// and spreads the rest at random
	st := open(t, front, "cluster-count", t.TempDir())
	evs := contractEvents(t)
	if len(evs) <= 1000 {
		t.Fatalf("%d events: too few for the front to spread a case over its nodes", len(evs))
	}
	fresh, err := st.Index(context.Background(), evs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var held int64
	for _, node := range nodes {
		n := nodeCount(t, node, `{cordon_case="cluster-count"}`)
		if n == 0 {
			t.Errorf("storage node %s holds none of the case: a case does not outgrow one node", node)
		}
		held += n
	}
	if held != int64(fresh) || fresh == 0 {
		t.Errorf("the storage nodes hold %d records of the case, the store wrote %d", held, fresh)
	}
}

// nodeCount asks one VictoriaLogs node how many records match filter.
func nodeCount(t *testing.T, node, filter string) int64 {
	t.Helper()
	resp, err := http.PostForm("http://"+node+"/select/logsql/query", url.Values{"query": {filter + " | stats count() n"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var n int64
	if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), `{"n":"%d"}`, &n); err != nil {
		t.Fatalf("%s answers %q: %v", node, b, err)
	}
	return n
}
