package tui

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/report"
	"github.com/cordon-ir/cordon/tui/common"
)

// writeExport runs :report and :export. The file goes into the
// workspace's exports/ folder under a name cordon chooses; a FILE typed
// after :report is taken only in a local console. Over SSH a session
// writes nowhere else: the path would be on the server, chosen by a
// remote user.
func (m Model) writeExport(verb string, args []string, rest string) (Model, tea.Cmd) {
	if len(args) == 0 {
		if verb == "report" {
			m.status = "usage: :report md|json|html [FILE] (into exports/ unless FILE)"
		} else {
			m.status = "usage: :export timesketch|ocsf|stix [QUERY]"
		}
		return m, nil
	}
	format := args[0]
	ws, ctx, now, version := m.cs.Workspace(), m.com.Ctx, time.Now(), orDefault(m.opt.Version, "unknown")
	var target string
	var write func(w io.Writer) (string, error)
	switch verb {
	case "report":
		if format != "md" && format != "json" && format != "html" {
			m.status = fmt.Sprintf(":report %s: want md, json or html", common.Clip(format, 20))
			return m, nil
		}
		if len(args) > 2 {
			m.status = "usage: :report md|json|html [FILE]"
			return m, nil
		}
		if len(args) == 2 {
			if m.opt.Remote {
				m.status = ":report FILE refused over SSH: a session writes only into the workspace's exports/ folder (:report " + format + ")"
				return m, nil
			}
			target = args[1]
		}
		write = func(w io.Writer) (string, error) {
			r, err := report.Build(ctx, ws, report.BuiltBy(version, []string{"cordon", "open", ":report", format}))
			if err != nil {
				return "", err
			}
			switch format {
			case "json":
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				err = enc.Encode(r)
			case "html":
				err = r.WriteHTML(w)
			default:
				err = r.WriteMarkdown(w)
			}
			return r.Redaction.Line(), err
		}
	case "export":
		q := evidence.All()
		query := strings.TrimSpace(strings.TrimPrefix(rest, format))
		if query != "" {
			if format != "timesketch" {
				m.status = ":export " + format + " exports the whole case; a query selects events for timesketch only"
				return m, nil
			}
			var err error
			if q, err = evidence.Parse(query); err != nil {
				m.err = err
				return m, nil
			}
		}
		write = func(w io.Writer) (string, error) {
			var red report.Redaction
			var n int
			var err error
			switch format {
			case "timesketch":
				n, red, err = report.Timesketch(ctx, ws, q, w)
			case "ocsf":
				n, red, err = report.OCSF(ctx, ws, filepath.Base(ws.Dir), w)
			case "stix":
				var b report.STIXObject
				if b, red, err = report.STIX(ctx, ws, now); err == nil {
					n = len(b["objects"].([]report.STIXObject))
					err = report.WriteSTIX(w, b)
				}
			default:
				return "", fmt.Errorf("format %q: want timesketch, ocsf or stix", format)
			}
			return fmt.Sprintf("%d records; %s", n, red.Line()), err
		}
	}
	ext := map[string]string{"md": "md", "json": "json", "html": "html", "timesketch": "jsonl", "ocsf": "jsonl", "stix": "json"}[format]
	if ext == "" {
		m.status = fmt.Sprintf(":export %s: want timesketch, ocsf or stix", common.Clip(format, 20))
		return m, nil
	}
	name := incident.ExportName(verb+"-"+format, ext, now)
	if verb == "report" {
		name = incident.ExportName("report", ext, now)
	}
	return m, m.com.Cmd(func() tea.Msg {
		var f *os.File
		var path string
		var err error
		if target != "" {
			f, err = os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			path = target
		} else {
			f, path, err = ws.CreateExport(name)
		}
		if err != nil {
			return common.WrittenMsg{Err: fmt.Errorf(":%s: %w", verb, err)}
		}
		said, err := write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path) // a torn export is not left to be read as whole
			return common.WrittenMsg{Err: fmt.Errorf(":%s %s: %w", verb, format, err)}
		}
		return common.WrittenMsg{Text: fmt.Sprintf("wrote %s (%s)", path, said)}
	})
}
