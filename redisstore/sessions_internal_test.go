package redisstore

import (
	"testing"
	"time"
)

func TestTimeRounding(t *testing.T) {
	for _, tc := range []struct {
		t           time.Time
		floor, ceil int64
	}{
		{time.UnixMilli(1000), 1000, 1000},
		{time.UnixMilli(1000).Add(time.Nanosecond), 1000, 1001},
		{time.UnixMilli(1000).Add(-time.Nanosecond), 999, 1000},
		{time.UnixMilli(-1000).Add(-time.Nanosecond), -1001, -1000},
		{time.UnixMilli(-1000).Add(time.Nanosecond), -1000, -999},
	} {
		if f, c := floorMillis(tc.t), ceilMillis(tc.t); f != tc.floor || c != tc.ceil {
			t.Errorf("%v: floor %d ceil %d, want %d %d", tc.t, f, c, tc.floor, tc.ceil)
		}
	}
}
