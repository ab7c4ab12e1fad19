package detect_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/cordon-ir/cordon/detect"
)

func TestDumpCaps(t *testing.T) {
	if os.Getenv("DUMP") == "" {
		t.Skip()
	}
	for _, name := range []string{"credential-theft", "egress-probe-exfil", "persistence-after-kill", "busy-benign"} {
		evs := loadSample(t, name)
		detect.AttributeAll(evs)
		rules, _ := detect.Builtin()
		r, err := (&detect.Engine{Rules: rules}).Scan(context.Background(), detect.NewMemSource(evs))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("==", name)
		for _, a := range r.Capabilities.Agents() {
			for _, c := range r.Capabilities.For(a) {
				ok, _ := c.LastOK()
				fmt.Printf("%s %-10s %-8s %-40s owner=%s kind=%s uses=%d lastok=%s end=%s(%s) bytes=%d allow=%s how=%s\n", a, c.Kind, c.Origin, c.Value, c.Owner, c.CredKind, len(c.Uses), ok.Time.Format("15:04:05"), c.EndAt.Format("15:04:05"), c.EndHow, c.BytesOut, c.Allowlist, c.How)
			}
		}
	}
}
