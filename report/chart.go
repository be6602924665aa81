package report

import (
	"fmt"
	"time"

	"github.com/agentready/agentready/internal/reportview"
)

// series is a snapshot's slot-by-slot counts, slot lo first.
type series struct {
	lo     int64
	points []reportview.Point
}

// newSeries is the empty series of slots lo to hi (in resolutions since
// the Unix epoch), none when hi is before lo (a clock gone back past the
// report's start). It is never nil, so that JSON shows none as [].
func newSeries(lo, hi int64, res time.Duration, loc *time.Location) series {
	s := series{lo: lo, points: make([]reportview.Point, 0, max(0, min(hi-lo+1, slots)))}
	for e := lo; e <= hi && len(s.points) < slots; e++ {
		s.points = append(s.points, reportview.Point{Start: time.Unix(0, e*int64(res)).In(loc)})
	}
	return s
}

// add counts slot sl in its point, if the series has it.
func (s *series) add(sl *slot) {
	i := sl.epoch - s.lo
	if i < 0 || i >= int64(len(s.points)) {
		return
	}
	p := &s.points[i]
	p.Allowed += sl.total.allowed
	p.Denied += sl.total.denied
	p.RateLimited += sl.total.limited
	p.Requests = p.Allowed + p.Denied + p.RateLimited
	p.Passed += sl.passed
}

// The chart's geometry, in SVG user units (CSS pixels): a bar a slot,
// slots bars across the plot, the y axis's labels on the left and the
// time's below.
const (
	chartBar    = 10 // a slot's width, gap included
	chartLeft   = 44 // room for the y axis's labels
	chartTop    = 8
	chartPlot   = 100 // the plot's height
	chartBottom = 22  // room for the time labels
	chartWidth  = chartLeft + slots*chartBar + 8
	chartHeight = chartTop + chartPlot + chartBottom
)

// chart is the page's per-slot chart of agent requests, laid out here so
// that the template only writes numbers: an inline SVG, no script, drawn
// by the browser under the page's Content-Security-Policy (an inline
// element fetches nothing).
type chart struct {
	Width, Height, Left, Top, Plot, Right, Base int
	Max                                         int64 // the y axis's top
	Bars                                        []bar
	// From and To label the x axis: the window's first slot and now.
	From, To string
	// Start is the x of the report's start when it falls inside the
	// window, 0 when the window is all after it.
	Start int
}

// bar is one slot's stacked bar: allowed at the bottom, then
// rate-limited, then denied; Title is what hovering it says.
type bar struct {
	X, W  int
	Segs  []seg
	Title string
}

type seg struct {
	Y, H  int
	Class string // the style of its outcome: allowed, limited, denied
}

// newChart lays out s's series on a plot of every slot of the window, the
// current one rightmost.
func newChart(s *reportview.Snapshot) chart {
	c := chart{Width: chartWidth, Height: chartHeight, Left: chartLeft, Top: chartTop, Plot: chartPlot,
		Right: chartLeft + slots*chartBar, Base: chartTop + chartPlot, Max: 1}
	if len(s.Series) == 0 || s.Resolution <= 0 {
		return c
	}
	for _, p := range s.Series {
		c.Max = max(c.Max, p.Requests)
	}
	last := s.Series[len(s.Series)-1].Start
	first := last.Add(-(slots - 1) * s.Resolution)
	c.From, c.To = first.Format("15:04:05"), s.To.Format("15:04:05")
	if s.Started.After(first) {
		c.Start = chartLeft + int(s.Started.Sub(first)*chartBar/s.Resolution)
	}
	for _, p := range s.Series {
		i := slots - 1 - int(last.Sub(p.Start)/s.Resolution)
		if i < 0 || i >= slots || p.Requests == 0 {
			continue
		}
		b := bar{X: chartLeft + i*chartBar + 1, W: chartBar - 2,
			Title: fmt.Sprintf("%s: %d agent requests (%d allowed, %d rate-limited, %d denied)", p.Start.Format("15:04:05"), p.Requests, p.Allowed, p.RateLimited, p.Denied)}
		// Each segment's top is its cumulative count's height, rounded up,
		// so that the stack's height is the total's and no count of one
		// draws nothing.
		var cum int64
		prev := 0
		for _, part := range []struct {
			n     int64
			class string
		}{{p.Allowed, "allowed"}, {p.RateLimited, "limited"}, {p.Denied, "denied"}} {
			if part.n == 0 {
				continue
			}
			cum += part.n
			h := int((cum*chartPlot + c.Max - 1) / c.Max)
			if h > prev {
				b.Segs = append(b.Segs, seg{Y: c.Base - h, H: h - prev, Class: part.class})
			}
			prev = h
		}
		c.Bars = append(c.Bars, b)
	}
	return c
}
