package webbotauth

import (
	"crypto/rand"
	"encoding/base64"

	sfv "github.com/dunglas/httpsfv"
)

// AcceptLabel is the label of the signature AcceptSignature asks for.
const AcceptLabel = "sig1"

// acceptComponents are the components AcceptSignature asks a signature to
// cover: the profile's minimum, @authority and the signer's own
// Signature-Agent member keyed to the label (draft-ietf-webbotauth-httpsig-protocol-01
// 5.2, 5.2.1), narrowed to one method and resource by @method and @path,
// which 5.2 says a signer SHOULD cover ("A signer that omits them remains
// conformant"; Verify accepts it without them).
var acceptComponents = []string{"@method", "@authority", "@path", "signature-agent"}

// AcceptSignature returns the value of an Accept-Signature field (RFC 9421
// 5.1) asking the client to sign its next request as Web Bot Auth does
// (draft-ietf-webbotauth-httpsig-protocol-01 5.3: "A resulting signature
// MUST satisfy this profile"):
//
//	sig1=("@method" "@authority" "@path" "signature-agent";key="sig1");tag="web-bot-auth";nonce="..."
//
// tag="web-bot-auth" names the profile, which makes created, expires and
// keyid required; RFC 9421 5.1 forbids asking for parameters the signer
// generates (created, expires), so they are not listed. nonce is included
// when not empty (5.3: "The Origin MAY request additional parameters ...
// including nonce"); the verifier then spends it like any nonce, once.
//
// A site sends it on a refusal for an unproven identity (5.3: with 403),
// and with the 429 that answers a replayed nonce ("MAY request a new
// signature and respond with 429"). It is not cacheable per request:
// responses carrying a nonce should not be stored by shared caches.
func AcceptSignature(nonce string) string {
	items := make([]sfv.Item, len(acceptComponents))
	for i, c := range acceptComponents {
		items[i] = sfv.NewItem(c)
	}
	agent := sfv.NewParams()
	agent.Add("key", AcceptLabel)
	items[len(items)-1].Params = agent
	params := sfv.NewParams()
	params.Add("tag", tagWebBotAuth)
	if nonce != "" {
		params.Add("nonce", nonce)
	}
	d := sfv.NewDictionary()
	d.Add(AcceptLabel, sfv.InnerList{Items: items, Params: params})
	s, err := sfv.Marshal(d)
	if err != nil {
		// Only a nonce outside the printable ASCII an sf-string holds;
		// ask without it.
		return AcceptSignature("")
	}
	return s
}

// NewNonce returns a fresh nonce for AcceptSignature: 32 random bytes,
// base64 (the form the draft's test vectors use).
func NewNonce() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}
