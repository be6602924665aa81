// Package policy holds the compiled, immutable pieces of a site's agent
// policy that the enforcing middleware consults on every request: path
// rules with robots.txt precedence, request-path canonicalisation, and the
// User-Agent classifier. Everything is built once; matching does not
// allocate and its worst case is bounded, because paths and User-Agents
// come from attackers.
//
// # Paths
//
// A request path is first put in canonical form (Canonical): unreserved
// escapes decoded, other escapes upper-cased, %2F and %2E decoded before
// dot segments are removed, empty segments collapsed, and the query
// appended as "?query". Rule patterns are canonicalised the same way when
// compiled, so "/%61dmin" in a rule is "/admin", and /x/..%2fadmin cannot
// slip past a rule for /admin.
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
// Classify reads the product tokens of a User-Agent (see Tokens): the
// first product token, every top-level product's name (the text before
// its '/', products separated by whitespace, ';' or ','), and the name of
// every item of every comment (items separated by ';' and ','; a name ends
// at '/' or whitespace). Each name is compared case-insensitively and
// exactly with the site's declared agent names, the known-agent list and
// the generic-client list: "spider" does not match "Baiduspider", and
// "claude" does not match "ClaudeBot". A declared name wins wherever it
// appears in the User-Agent; otherwise the first token in order that is a
// known or generic name decides (for the same name, known before
// generic). With no match the client is a browser, except that a
// User-Agent with no product token at all (empty) is a generic client.
// Only the first MaxUserAgentLen bytes and MaxUserAgentTokens names are
// read.
//
// Classification says who a client claims to be. It does not authenticate:
// any client can send any User-Agent.
package policy
