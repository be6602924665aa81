package policy

import "strings"

// A browser is recognised positively (docs/enforcement.md, "Classification:
// who is an agent"): a User-Agent passes as a browser only when it has the
// shape every current browser sends,
//
//	Mozilla/5.0 (<platform>) <engine> <browser products...>
//
// and nothing in it marks an automated client. Every other User-Agent is
// an agent: draft-car 2.7 makes "Agent: *" the default policy of all
// agents, and a client that is not a browser is one. The test is held to
// the real browser User-Agents of the npm package user-agents (none may
// fail it) and to the crawler examples of crawler-user-agents (none may
// pass it); see testdata/ua/SOURCE.md.
//
// The shape, precisely:
//
//   - printable ASCII only, at most MaxUserAgentLen bytes and fewer than
//     MaxUserAgentTokens names (longer strings are not read whole, so they
//     are not vouched for);
//   - it starts "Mozilla/5.0 (" and the platform comment's first item is a
//     platform (Windows NT, Macintosh, X11, Linux, Android, iPhone, iPad,
//     iPod, CrOS, Mobile, Tablet, TV): "compatible; ..." is how crawlers
//     and Internet Explorer 10 and older announce themselves, and is not a
//     browser here;
//   - the other items of a desktop platform (Windows, Macintosh, X11) are
//     made of platform words only (Win64, x64, Intel Mac OS X 10_15_7,
//     Linux x86_64, rv:133.0, a locale ...); those of a mobile platform
//     (a device model is free text) carry no bot marker;
//   - every top-level product after the platform is a browser or engine
//     product (AppleWebKit, Gecko, Chrome, Safari, Firefox, Edg, OPR, ...,
//     see browserProducts) or a bare version number, and at least one is a
//     rendering engine (AppleWebKit or Gecko, or Trident in the platform);
//   - a comment after the platform is "(KHTML, like Gecko)" or carries no
//     bot marker, and no product version carries one.
//
// A bot marker (see hasMarker) is a URL, an e-mail address, or a word that
// names automation: bot, crawler, spider, scraper, headless, selenium,
// automated, ..., with its plurals and inflections. Words are whole: the
// phone model "Cubot" is a word of its own and no marker, where a
// substring test would take it for a bot.
func plausibleBrowser(ua string, extra map[string]bool) bool {
	const prefix = "Mozilla/5.0 ("
	if len(ua) > MaxUserAgentLen || !strings.HasPrefix(ua, prefix) {
		return false
	}
	for i := 0; i < len(ua); i++ {
		if c := ua[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	end := strings.IndexByte(ua[len(prefix):], ')')
	if end < 0 {
		return false
	}
	platform := ua[len(prefix) : len(prefix)+end]
	if strings.IndexByte(platform, '(') >= 0 {
		// A nested comment: only Android device models have those
		// ("moto g power (2022)"); the closing ')' found is the inner one.
		end = closeParen(ua, len(prefix)-1)
		if end < 0 {
			return false
		}
		platform = ua[len(prefix):end]
		end -= len(prefix)
	}
	kind, engine := platformKind(platform)
	if kind == noPlatform {
		return false
	}
	rest := ua[len(prefix)+end+1:]
	names, afterProduct := 1, false
	for rest != "" {
		switch c := rest[0]; {
		case c == ' ':
			rest = rest[1:]
		case c == '(':
			// A comment follows a browser product ("OPR/135.0 (Edition
			// std-1)"), never the platform or another comment alone.
			j := closeParen(rest, 0)
			if j < 0 || !afterProduct || !browserComment(rest[1:j]) {
				return false
			}
			rest, afterProduct = rest[j+1:], false
		default:
			j := strings.IndexAny(rest, " (")
			if j < 0 {
				j = len(rest)
			}
			word := rest[:j]
			rest, afterProduct = rest[j:], true
			name, version, hasVersion := strings.Cut(word, "/")
			names++
			if hasVersion && (!isProductVersion(version) || hasMarkerWord(version)) {
				return false // "Chrome/bot", "Safari/+https://...", "Safari/537.36-scraper"
			}
			switch {
			case name == "AppleWebKit" || name == "Gecko":
				engine = true
			case browserProducts[name], isVersion(name), hasLower(extra, name):
			default:
				return false
			}
		}
	}
	return engine && names < MaxUserAgentTokens
}

// isProductVersion reports whether v is a browser product's version: at
// least one digit, and letters, digits, '.', '_' and '-' only
// ("537.36", "15E148", "G6.0.2").
func isProductVersion(v string) bool {
	digit := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isDigit(c):
			digit = true
		case isLetter(c) || c == '.' || c == '_' || c == '-':
		default:
			return false
		}
	}
	return digit
}

// closeParen returns the index of the ')' closing the '(' at s[open],
// allowing nesting, or -1.
func closeParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

type platformClass uint8

const (
	noPlatform platformClass = iota
	desktopPlatform
	mobilePlatform
)

// platformKind classifies the platform comment by its first item and
// checks its other items; engine reports a Trident item (Internet Explorer
// 11: "(Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko").
func platformKind(p string) (kind platformClass, engine bool) {
	first, rest, _ := strings.Cut(p, ";")
	first = strings.TrimSpace(first)
	word, _, _ := strings.Cut(first, " ")
	switch word {
	case "Windows", "Macintosh", "X11":
		kind = desktopPlatform
	case "Linux", "Android", "iPhone", "iPad", "iPod", "CrOS", "Mobile", "Tablet", "TV",
		"SMART-TV", "SmartTV", "Web0S", "PlayStation", "Nintendo":
		kind = mobilePlatform
	default:
		return noPlatform, false
	}
	if !platformItem(first, kind) {
		return noPlatform, false
	}
	for rest != "" {
		var item string
		item, rest, _ = strings.Cut(rest, ";")
		item = strings.TrimSpace(item)
		if strings.HasPrefix(item, "Trident/") {
			engine = true
		}
		if !platformItem(item, kind) {
			return noPlatform, false
		}
	}
	return kind, engine
}

// platformItem reports whether one item of a platform comment is what a
// browser sends there: platform words only on a desktop platform, no bot
// marker on a mobile one (whose device models are free text).
func platformItem(item string, kind platformClass) bool {
	if kind == mobilePlatform {
		return !hasMarker(item)
	}
	if item == "" {
		return true
	}
	var buf [maxNameLen]byte
	for w, i := nextWord(item, 0, &buf); w != nil; w, i = nextWord(item, i, &buf) {
		if !desktopWords[string(w)] && !isDigit(w[0]) && len(w) != 2 { // a locale: "en-US"
			return false
		}
	}
	return true
}

// browserComment reports whether a comment after the platform is one a
// browser sends: "(KHTML, like Gecko)" or one without a bot marker (Opera's
// "(Edition std-1)", an in-app browser's device details).
func browserComment(c string) bool {
	if c == "KHTML, like Gecko" {
		return true
	}
	if strings.HasPrefix(c, "KHTML") {
		return false // "(KHTML, like Gecko; Google Web Preview)" and the like
	}
	return !hasMarker(c)
}

// nextWord returns the word of s that starts at or after s[i],
// lower-cased into buf, and the index after it; w is nil when there is
// none. Words are runs of letters split where a lower-case letter is
// followed by an upper-case one ("MyCrawlerBot": my, crawler, bot) and
// where an upper-case run is followed by lower case, before its last
// letter ("TSMBot": tsm, bot), and runs of digits. Everything else
// separates words; a word longer than buf is cut at its length.
func nextWord(s string, i int, buf *[maxNameLen]byte) (w []byte, next int) {
	for i < len(s) && !isLetter(s[i]) && !isDigit(s[i]) {
		i++
	}
	if i == len(s) {
		return nil, i
	}
	j := i + 1
	if isDigit(s[i]) {
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	} else {
		for j < len(s) && isLetter(s[j]) {
			if isLowerByte(s[j-1]) && !isLowerByte(s[j]) {
				break // "yB": a camelCase boundary
			}
			if !isLowerByte(s[j-1]) && !isLowerByte(s[j]) && j+1 < len(s) && isLowerByte(s[j+1]) {
				break // "MBo": an upper-case run ends before its last letter
			}
			j++
		}
	}
	n := copy(buf[:], s[i:j])
	for k := range n {
		buf[k] = lower(buf[k])
	}
	return buf[:n], j
}

func isDigit(c byte) bool     { return '0' <= c && c <= '9' }
func isLetter(c byte) bool    { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isLowerByte(c byte) bool { return 'a' <= c && c <= 'z' }

func isVersion(s string) bool {
	return s != "" && isDigit(s[0]) && strings.Trim(s, "0123456789.") == ""
}

// browserProducts are the top-level product names browsers send after the
// platform comment: engines' compatibility tokens, the browsers' own
// names, and those of in-app and search-app browsers seen in real browser
// traffic. A site adds its own (its app's product token) with
// WithBrowserTokens.
var browserProducts = map[string]bool{
	"AppleWebKit": true, "Gecko": true, "like": true, // IE 11: "like Gecko"
	"Chrome": true, "Chromium": true, "Safari": true, "Mobile": true, "Version": true,
	"Firefox": true, "FxiOS": true, "Focus": true, "Klar": true,
	"CriOS": true, "EdgiOS": true, "EdgA": true, "Edg": true, "Edge": true,
	"OPR": true, "OPT": true, "OPX": true, "OPiOS": true, "Opera": true,
	"YaBrowser": true, "YaApp_iOS": true, "YaApp_Android": true, "YaSearchBrowser": true, "SA": true,
	"SamsungBrowser": true, "UCBrowser": true, "Vivaldi": true, "Brave": true,
	"DuckDuckGo": true, "Ddg": true, "GSA": true, "Silk": true, "Whale": true,
	"MiuiBrowser": true, "XiaoMi": true, "HuaweiBrowser": true, "HeyTapBrowser": true,
	"QQBrowser": true, "MQQBrowser": true, "Quark": true, "AlohaBrowser": true, "Puffin": true,
	"Snapchat": true, "Barcelona": true, "Android": true, "Honorlock": true, "Ecosia": true,
	// Other engines' and browsers' tokens: Pale Moon's Goanna, forks of
	// Firefox, security suites' Chromium builds, Arc, smart TVs' and
	// consoles' browsers, KaiOS, Chromecast.
	"Goanna": true, "PaleMoon": true, "SeaMonkey": true, "Waterfox": true, "AVG": true, "Avast": true,
	"Arc": true, "TV": true, "WebAppManager": true, "KAIOS": true, "CrKey": true,
	"LibreWolf": true, "Ubuntu": true,
}

// desktopWords are the words of a desktop platform comment's items.
var desktopWords = map[string]bool{
	"windows": true, "nt": true, "win": true, "x": true, "wow": true, "arm": true, "touch": true,
	"macintosh": true, "intel": true, "mac": true, "os": true, "ppc": true,
	"linux": true, "i": true, "aarch": true, "armv": true, "l": true, "amd": true,
	"ubuntu": true, "fedora": true, "debian": true, "cr": true, "freebsd": true, "openbsd": true, "netbsd": true,
	"rv": true, "u": true, "trident": true, "free": true, "bsd": true, "xbox": true, "one": true,
}
