// Package policy holds the compiled, immutable pieces of a site's agent
// policy that the enforcing middleware consults on every request: path
// rules with robots.txt precedence, request-path canonicalisation, and the
// User-Agent classifier. Everything is built once; matching does not
// allocate and its worst case is bounded, because paths and User-Agents
// come from attackers.
//
// # Paths
//
// Routers do not route one request target the same way: net/http.ServeMux
// cleans the escaped path and unescapes it segment by segment, so
// "/admin/..%2Fapi" reaches its "/admin/" handler ("..%2Fapi" is one
// segment to it), while chi routes the raw path and resolves no "..". A
// path decision must hold for every router, so:
//
//   - NormalPath gives an agent's target its one canonical form (RFC 3986
//     6.2.2), the form decided on and forwarded, and refuses the targets
//     routers read differently: an encoded '/' (%2F), a backslash raw or
//     encoded, a control character, a dot segment ("." or "..", raw or
//     with %2E, also before a ";" parameter), an empty segment ("//"), a
//     malformed escape, bytes that are not UTF-8, a path not starting with
//     '/'. The enforcing middleware answers them 400 before any rule (RFC
//     3986 2.2 and 5.2.4 say what each means; routers do not agree with it
//     or with each other); StripParams gives the reading of a servlet
//     container, which removes each segment's ";" parameter;
//   - every other target is decided on each of its readings: Canonical,
//     the RFC 9309 2.2.2 form (unreserved escapes decoded, other escapes
//     kept, upper-cased), and, when HasDecodable says the two differ,
//     Decoded, the form a router that unescapes routes ("/a%3Bb" is
//     "/a;b"). A request is allowed only if every reading is.
//
// Patterns are matched as published: only the request is canonicalised.
// A pattern's escapes are normalised the same way, nothing is resolved or
// collapsed, and pathpattern.Check rejects what no admitted request
// can hold (%2F, dot and empty segments, backslashes, control escapes) and
// escaped sub-delimiters, which Go's routers decode.
//
// Rules follow robots.txt as Google's reference parser applies them (RFC
// 9309 2.2.2 and 2.2.3):
//
//   - a pattern matches a path when it matches a prefix of it;
//   - '*' matches any run of characters, '/' and '?' included;
//   - '$' is special only as the last character, where it anchors the end
//     of the path (query included: "/*.php$" does not match
//     "/a.php?x=1");
//   - among the matching rules, the one whose canonical pattern is the
//     longest in bytes ('*' and '$' count) wins; on equal length Allow
//     wins (then the lower index, so exactly one rule is returned);
//   - no matching rule is no decision: the caller decides.
//
// Google's index.html special case (an Allow for "/index.htm" also
// allowing "/") is not applied: a site says what it means here.
//
// Match examines only the rules whose literal prefix (the text before the
// first '*' or '$') is a prefix of the path, found by walking a radix trie
// of the prefixes, so its cost does not grow with the number of rules.
// Wildcards are matched greedily, each '*'-separated piece searched once,
// in time linear in the path; MaxPathLen caps the bytes examined. The
// wildcard matcher is hand-written: github.com/gobwas/glob, measured on
// the same job (BenchmarkWildcard), is 2 to 4 times slower on ordinary
// patterns and backtracks on hostile ones ("/*a*a*a*a*a*b" against 8 KiB
// of 'a': about 1 ms against 0.2 µs).
//
// # User-Agents
//
// A browser is recognised positively; every other client is an agent (see
// plausibleBrowser in browser.go for the exact shape: "Mozilla/5.0
// (<platform>) <engine> <browser products>" with no bot marker, a marker
// being a whole word such as "bot" or "crawler", never a substring, so the
// phone model "Cubot" is a browser). Among agents, Classify reads the
// product tokens of a User-Agent (see Tokens): the first product token,
// every top-level product's name (the text before its '/', products
// separated by whitespace, ';' or ','), and the name of every item of
// every comment (items separated by ';' and ','; a name ends at '/' or
// whitespace). Each name is compared case-insensitively and exactly with
// the site's declared agent names, the known-agent list and the
// generic-client list: "spider" does not match "Baiduspider", and "claude"
// does not match "ClaudeBot". A declared name wins wherever it appears;
// otherwise the first token in order that is a known or generic name
// decides (for the same name, known before generic). With no match the
// client is a Browser when its User-Agent is a plausible browser's or
// carries a token of WithBrowserTokens, and Unknown otherwise: empty,
// unnamed, malformed, or longer than the MaxUserAgentLen bytes read.
//
// The browser test is held to real traffic no one here wrote (testdata/ua:
// the npm packages user-agents, crawler-user-agents and isbot).
//
// Classification says who a client claims to be. It does not authenticate:
// any client can send any User-Agent.
package policy
