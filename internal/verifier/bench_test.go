package verifier

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// benchList is a range list of the size operators publish (Google's
// common-crawlers.json holds a few hundred prefixes).
func benchList() []byte {
	var b strings.Builder
	b.WriteString(`{"prefixes":[`)
	for i := range 300 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"ipv4Prefix":"%d.%d.%d.0/24"}`, 20+i/200, i%200, i%7)
	}
	for i := range 100 {
		fmt.Fprintf(&b, `,{"ipv6Prefix":"2001:db8:%x::/48"}`, i*3)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

var benchAddrs = []netip.Addr{
	netip.MustParseAddr("20.17.3.9"),     // inside
	netip.MustParseAddr("21.50.1.1"),     // outside
	netip.MustParseAddr("2001:db8:9::1"), // inside
	netip.MustParseAddr("203.0.113.7"),   // outside
}

// BenchmarkRangesContains is the request path of an IP-range check beside
// netipx.IPSet.Contains on the same list:
//
//	go test ./verify -run '^$' -bench 'Contains' -count 10 | benchstat -col /impl -
func BenchmarkRangesContains(b *testing.B) {
	set, _, err := ParseRanges(benchList())
	if err != nil {
		b.Fatal(err)
	}
	r := &rangeList{url: "bench"}
	r.cur.Store(&rangeSet{set: set})
	b.Run("impl=Ranges", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := r.Contains(benchAddrs[i&3]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=IPSet", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_ = set.Contains(benchAddrs[i&3])
		}
	})
}
