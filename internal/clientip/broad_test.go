package clientip

import (
	"encoding/binary"
	"net/netip"
	"strings"
	"testing"
)

func TestBroad(t *testing.T) {
	tests := []struct {
		list []string
		want string // substring of Broad's answer; "" for none
	}{
		{nil, ""},
		{[]string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "127.0.0.0/8", "100.64.0.0/10", "169.254.0.0/16"}, ""},
		{[]string{"::1", "fc00::/7", "fe80::/10"}, ""},
		{[]string{"0.0.0.0/0"}, "globally routable IPv4 addresses, more than the 16,777,216 of a /8"},
		{[]string{"0.0.0.0/1", "128.0.0.0/1"}, "IPv4"},
		{[]string{"::/0"}, "IPv6 prefixes shorter than /16"},
		{[]string{"::ffff:0.0.0.0/96"}, "IPv4"}, // all of IPv4, mapped
		{[]string{"2000::/3"}, "(2000::/3 among them)"},
		{[]string{"2001:db8::/32", "2001::/16"}, ""},
		{[]string{"2000::/16", "2001::/16"}, "(2000::/15 among them)"}, // their union is a /15
		{[]string{"2001::/16", "2002::/16"}, ""},                       // not aligned: no /15
		{[]string{"11.0.0.0/8"}, ""},                                   // exactly 2^24
		{[]string{"10.0.0.0/7"}, ""},                                   // 10/8 does not count
		{[]string{"11.0.0.0/8", "12.0.0.0/32"}, "16,777,217 globally"},
		{[]string{"8.0.0.0/6"}, "IPv4"},
		{[]string{"fc00::/6"}, "(ff00::/8 among them)"}, // fc00::/7 does not count
		{[]string{"0.0.0.0/0", "::/0"}, ", and cover globally routable IPv6"},
		{[]string{"not an address", " 10.0.0.0/8 "}, ""},
	}
	for _, tt := range tests {
		got := Broad(tt.list)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("Broad(%q) = %q, want %q", tt.list, got, tt.want)
		}
	}
}

// FuzzBroad: no set of prefixes makes Broad panic, and its verdict is a
// brute-force count's: IPv4 addresses counted one by one in small
// prefixes (and by merged intervals in any), IPv6 decided on the 2^16
// /16 blocks when no prefix is longer than /16.
func FuzzBroad(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0}, false)
	f.Add([]byte{0, 0, 0, 0, 1, 128, 0, 0, 0, 1}, false)
	f.Add([]byte{10, 0, 0, 0, 8, 11, 0, 0, 0, 8, 12, 0, 0, 0, 32}, false)
	f.Add([]byte{0x20, 0x00, 0, 3, 0x20, 0x01, 0, 16}, true)
	f.Add([]byte{0xfc, 0x00, 0, 6, 0xfe, 0x80, 0, 9}, true)
	f.Fuzz(func(t *testing.T, data []byte, six bool) {
		var ps []netip.Prefix
		if six {
			for ; len(data) >= 4 && len(ps) < 16; data = data[4:] {
				var a [16]byte
				copy(a[:], data[:3])
				p, err := netip.AddrFrom16(a).Prefix(int(data[3]) % 17)
				if err != nil {
					t.Fatal(err)
				}
				ps = append(ps, p)
			}
		} else {
			for ; len(data) >= 5 && len(ps) < 16; data = data[5:] {
				p, err := netip.AddrFrom4([4]byte(data[:4])).Prefix(int(data[4]) % 33)
				if err != nil {
					t.Fatal(err)
				}
				ps = append(ps, p)
			}
		}
		verdict := broad(ps) // must not panic
		n, wide := globalCover(ps)
		if six {
			if want := wideByBlocks(ps); want != wide.IsValid() {
				t.Fatalf("%v: wide IPv6 %v, brute force %v", ps, wide, want)
			}
			if (verdict != "") != wide.IsValid() {
				t.Fatalf("%v: verdict %q, wide %v", ps, verdict, wide)
			}
			return
		}
		if want := ipv4ByIntervals(ps); n != want {
			t.Fatalf("%v: %d global IPv4 addresses, intervals say %d", ps, n, want)
		}
		if want, ok := ipv4ByAddresses(ps); ok && n != want {
			t.Fatalf("%v: %d global IPv4 addresses, counted one by one %d", ps, n, want)
		}
		if (verdict != "") != (n > MaxGlobalIPv4) {
			t.Fatalf("%v: verdict %q for %d addresses", ps, verdict, n)
		}
	})
}

func u32(a netip.Addr) uint32 { b := a.As4(); return binary.BigEndian.Uint32(b[:]) }

// v4Range is the first and last address of an IPv4 prefix.
func v4Range(p netip.Prefix) (uint64, uint64) {
	lo := uint64(u32(p.Masked().Addr()))
	return lo, lo + 1<<(32-p.Bits()) - 1
}

var nonGlobalV4 = []string{"127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16"}

// ipv4ByIntervals counts the global IPv4 addresses of ps without netipx:
// for each elementary interval between the prefixes' bounds, whether a
// prefix holds it and no non-global network does.
func ipv4ByIntervals(ps []netip.Prefix) uint64 {
	type iv struct{ lo, hi uint64 }
	var in, out []iv
	bounds := map[uint64]bool{0: true, 1 << 32: true}
	for _, p := range ps {
		lo, hi := v4Range(p)
		in = append(in, iv{lo, hi})
		bounds[lo], bounds[hi+1] = true, true
	}
	for _, s := range nonGlobalV4 {
		lo, hi := v4Range(netip.MustParsePrefix(s))
		out = append(out, iv{lo, hi})
		bounds[lo], bounds[hi+1] = true, true
	}
	var cuts []uint64
	for b := range bounds {
		cuts = append(cuts, b)
	}
	for i := range cuts { // insertion sort: few cuts
		for j := i; j > 0 && cuts[j] < cuts[j-1]; j-- {
			cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
		}
	}
	holds := func(l []iv, a uint64) bool {
		for _, v := range l {
			if v.lo <= a && a <= v.hi {
				return true
			}
		}
		return false
	}
	var n uint64
	for i := 0; i+1 < len(cuts); i++ {
		if holds(in, cuts[i]) && !holds(out, cuts[i]) {
			n += cuts[i+1] - cuts[i]
		}
	}
	return n
}

// ipv4ByAddresses counts the global IPv4 addresses of ps one by one, when
// they are few (every prefix /20 or longer); ok is false otherwise.
func ipv4ByAddresses(ps []netip.Prefix) (uint64, bool) {
	seen := map[uint32]bool{}
	for _, p := range ps {
		if p.Bits() < 20 {
			return 0, false
		}
		lo, hi := v4Range(p)
		for a := lo; a <= hi; a++ {
			seen[uint32(a)] = true
		}
	}
	var ng []netip.Prefix
	for _, s := range nonGlobalV4 {
		ng = append(ng, netip.MustParsePrefix(s))
	}
	var n uint64
	for a := range seen {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], a)
		global := true
		for _, p := range ng {
			if p.Contains(netip.AddrFrom4(b)) {
				global = false
			}
		}
		if global {
			n++
		}
	}
	return n, true
}

// wideByBlocks decides, for prefixes no longer than /16, whether the
// global part of their union holds an aligned /15: two /16 blocks of one
// /15, each held by a prefix and wholly global (not ::/16, which holds
// ::1, nor a block of fe80::/10 or fc00::/7).
func wideByBlocks(ps []netip.Prefix) bool {
	var covered [1 << 16]bool
	for _, p := range ps {
		first := int(p.Masked().Addr().As16()[0])<<8 | int(p.Masked().Addr().As16()[1])
		for i := first; i < first+1<<(16-p.Bits()); i++ {
			covered[i] = true
		}
	}
	global := func(i int) bool {
		return i != 0 && !(0xfe80 <= i && i <= 0xfebf) && !(0xfc00 <= i && i <= 0xfdff)
	}
	for i := 0; i < 1<<16; i += 2 {
		if covered[i] && covered[i+1] && global(i) && global(i+1) {
			return true
		}
	}
	return false
}
