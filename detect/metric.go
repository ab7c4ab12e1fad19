package detect

import (
	"math"
	"slices"
	"strconv"
)

// metric reports the metric correlations of Sigma v2.1: a number computed
// over a numeric field of the events in the window.
func metric(typ string) bool {
	switch typ {
	case ValueSum, ValueAvg, ValuePercentile, ValueMedian:
		return true
	}
	return false
}

// metricOf is how a metric correlation reduces the window's numbers (never
// none: an event without the field is not in the window).
func metricOf(c Correlation) func([]float64) float64 {
	switch c.Type {
	case ValueSum:
		return sum
	case ValueAvg:
		return func(xs []float64) float64 { return sum(xs) / float64(len(xs)) }
	case ValueMedian:
		return median
	case ValuePercentile:
		p := c.Percentile
		return func(xs []float64) float64 { return percentile(xs, p) }
	}
	return nil
}

func sum(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t
}

// median is the middle number, or the mean of the two middle ones.
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// percentile is the nearest-rank percentile: the smallest number that p
// percent of the numbers are at most.
func percentile(xs []float64, p float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[max(rank, 1)-1]
}

func formatMetric(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
