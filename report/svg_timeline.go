package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
)

// timelineSVG draws one lane per agent: events per bucket as a density
// strip, denials as red ticks below it, findings as diamonds, sessions as
// a bar, data out as bars scaled to the bytes; containment and each
// layer's verification as vertical rules across every lane.
func timelineSVG(ls Lanes) string {
	const w, left, right, laneH, top = 960, 130, 20, 84, 40
	plot := w - left - right
	rulesH := 16 * len(ls.Rules)
	h := top + laneH*max(len(ls.Lanes), 1) + 40 + rulesH
	var b strings.Builder
	svgDoc(&b, w, h, "Timeline, one lane per agent")
	b.WriteString(`<text x="10" y="22" font-weight="bold">Timeline</text>`)
	if len(ls.Lanes) == 0 || ls.First.IsZero() {
		b.WriteString(`<text x="10" y="60">No agent is involved: nothing to draw.</text></svg>`)
		return b.String()
	}
	span := ls.Last.Sub(ls.First)
	if span <= 0 {
		span = time.Second
	}
	x := func(t time.Time) float64 {
		f := float64(t.Sub(ls.First)) / float64(span)
		return float64(left) + math.Min(math.Max(f, 0), 1)*float64(plot)
	}
	fmt.Fprintf(&b, `<text x="%d" y="22" fill="#444">%s</text>`, left, svgText(reportTime(ls.First), 30))
	fmt.Fprintf(&b, `<text x="%d" y="22" fill="#444" text-anchor="end">%s</text>`, w-right, svgText(reportTime(ls.Last), 30))
	var peak, bytesPeak int64 = 1, 1
	for _, l := range ls.Lanes {
		for _, n := range l.Events {
			peak = max(peak, n)
		}
		for _, d := range l.DataOut {
			bytesPeak = max(bytesPeak, d.Bytes)
		}
	}
	bw := float64(plot) / float64(max(ls.Buckets, 1))
	for i, l := range ls.Lanes {
		y := top + i*laneH
		fmt.Fprintf(&b, `<rect x="0" y="%d" width="%d" height="%d" fill="%s"/>`, y, w, laneH, []string{"#fafafa", "#f0f0f0"}[i%2])
		fmt.Fprintf(&b, `<text x="8" y="%d" font-weight="bold">%s</text>`, y+20, svgText(l.Agent, 16))
		// sessions: a thin bar at the top of the lane
		for _, s := range l.Sessions {
			end := s.End
			if end.IsZero() {
				end = ls.Last
			}
			x1, x2 := x(s.Start), x(end)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="6" fill="#1565c0"/>`, x1, y+6, math.Max(x2-x1, 2))
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#1565c0" stroke-width="2"/>`, x1, y+2, x1, y+16)
			if !s.End.IsZero() {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#1565c0" stroke-width="2"/>`, x2, y+2, x2, y+16)
			}
		}
		// density: bucket height by events, darker by more
		for j, n := range l.Events {
			if n == 0 {
				continue
			}
			hgt := math.Max(2, 24*float64(n)/float64(peak))
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#546e7a"/>`, float64(left)+float64(j)*bw, float64(y+44)-hgt, math.Max(bw-1, 1), hgt)
		}
		for j, n := range l.Denials {
			if n > 0 {
				fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="6" fill="#c62828"/>`, float64(left)+float64(j)*bw, y+46, math.Max(bw-1, 1))
			}
		}
		for _, f := range l.Findings {
			fx := x(f.Time)
			c := "#ef6c00"
			if detect.SeverityRank(f.Severity) >= detect.SeverityRank(detect.SeverityHigh) {
				c = "#b71c1c"
			}
			fmt.Fprintf(&b, `<path d="M%.1f,%d l5,6 l-5,6 l-5,-6z" fill="%s"/>`, fx, y+54, c)
		}
		for _, d := range l.DataOut {
			x1, x2 := x(d.First), x(d.Last)
			hgt := math.Max(2, 14*math.Log1p(float64(d.Bytes))/math.Log1p(float64(bytesPeak)))
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#6a1b9a"/>`, x1, float64(y+laneH-4)-hgt, math.Max(x2-x1, 3), hgt)
		}
		fmt.Fprintf(&b, `<text x="8" y="%d" font-size="10" fill="#666">%s</text>`, y+36, svgText(fmt.Sprintf("peak %d/bucket", maxOf(l.Events)), 20))
	}
	base := top + laneH*len(ls.Lanes)
	for i, r := range ls.Rules {
		rx := x(r.Time)
		c := "#2e7d32"
		if i == 0 && r.Label == "contained" {
			c = "#000"
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-dasharray="3 3"/>`, rx, top, rx, base+8+16*i, c)
		anchor := "start"
		if rx > float64(w)/2 {
			anchor = "end"
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10" fill="%s" text-anchor="%s">%s</text>`, rx, base+18+16*i, c, anchor, svgText(r.Label+" "+reportTime(r.Time), 60))
	}
	ly := h - 10
	fmt.Fprintf(&b, `<text x="10" y="%d" font-size="11" fill="#444">blue: sessions · grey: events per bucket (%s each) · red: denials · ◆ findings · purple: data out · dashed: containment and layers verified</text>`, ly, svgText(bucketWidth(ls), 16))
	b.WriteString("</svg>")
	return b.String()
}

func maxOf(l []int64) int64 {
	var m int64
	for _, v := range l {
		m = max(m, v)
	}
	return m
}

func bucketWidth(ls Lanes) string {
	if ls.Buckets <= 0 {
		return "—"
	}
	return (ls.Last.Sub(ls.First) / time.Duration(ls.Buckets)).Round(time.Second).String()
}
