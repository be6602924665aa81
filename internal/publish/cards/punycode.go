package cards

import "strings"

// Punycode's parameters for IDNA (RFC 3492 5).
const (
	punyBase        = 36
	punyTMin        = 1
	punyTMax        = 26
	punySkew        = 38
	punyDamp        = 700
	punyInitialBias = 72
	punyInitialN    = 128
)

// punycode encodes a label with the Punycode of RFC 3492 (6.3, the
// encoding procedure): its basic (ASCII) code points as they are, a "-"
// when there are any, then the deltas of the others. The caller adds the
// "xn--" ACE prefix (RFC 5890 2.3.2.1). Labels are at most a few hundred
// code points (a URL host), far from the procedure's overflow bounds, which
// int (64 bits on every platform Go supports for servers) leaves unreached.
func punycode(label string) string {
	runes := []rune(label)
	var out strings.Builder
	for _, r := range runes {
		if r < 0x80 {
			out.WriteByte(byte(r))
		}
	}
	b := out.Len()
	h := b
	if b > 0 {
		out.WriteByte('-')
	}
	n, delta, bias := punyInitialN, 0, punyInitialBias
	for h < len(runes) {
		m := rune(0x7fffffff)
		for _, r := range runes {
			if int(r) >= n && r < m {
				m = r
			}
		}
		delta += (int(m) - n) * (h + 1)
		n = int(m)
		for _, r := range runes {
			if int(r) < n {
				delta++
			}
			if int(r) != n {
				continue
			}
			q := delta
			for k := punyBase; ; k += punyBase {
				t := min(max(k-bias, punyTMin), punyTMax)
				if q < t {
					break
				}
				out.WriteByte(punyDigit(t + (q-t)%(punyBase-t)))
				q = (q - t) / (punyBase - t)
			}
			out.WriteByte(punyDigit(q))
			bias = punyAdapt(delta, h+1, h == b)
			delta = 0
			h++
		}
		delta++
		n++
	}
	return out.String()
}

// punyAdapt is the bias adaptation function (RFC 3492 6.1).
func punyAdapt(delta, numPoints int, first bool) int {
	if first {
		delta /= punyDamp
	} else {
		delta /= 2
	}
	delta += delta / numPoints
	k := 0
	for delta > ((punyBase-punyTMin)*punyTMax)/2 {
		delta /= punyBase - punyTMin
		k += punyBase
	}
	return k + (punyBase-punyTMin+1)*delta/(delta+punySkew)
}

// punyDigit is the basic code point of a digit value: 0-25 are a-z,
// 26-35 are 0-9 (RFC 3492 5).
func punyDigit(d int) byte {
	if d < 26 {
		return byte('a' + d)
	}
	return byte('0' + d - 26)
}
