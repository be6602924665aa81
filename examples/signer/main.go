// Command signer is a Web Bot Auth agent for the demo: it publishes its
// public key and sends requests signed with that key (RFC 9421, tag
// "web-bot-auth", draft-ietf-webbotauth-httpsig-protocol-01), so that a site
// running agentready with a verified-only policy can be tried by hand.
//
// -serve publishes the key twice, as agents do today: as a JWK Set at
// /jwks.json, a plain JSON file such as a static host serves (unsigned),
// and as a key directory at /.well-known/http-message-signatures-directory,
// which signs its response to prove it holds the key (the draft's appendix
// B.1). The Signature-Agent a request carries is -agent, as given: under
// -01 the URL of the JWK Set; a bare origin is the form deployed agents
// still send (ChatGPT agent sends "https://chatgpt.com"), which resolves
// at the well-known URI.
//
// Start the agent's keys, then the demo trusting them, then sign:
//
//	go run ./examples/signer -key /tmp/agent.key -serve 127.0.0.1:9090 &
//	go run ./examples/stdlib -addr 127.0.0.1:8080 -trust-signature-agent http://127.0.0.1:9090/jwks.json &
//	go run ./examples/signer -key /tmp/agent.key -agent http://127.0.0.1:9090/jwks.json http://127.0.0.1:8080/api/search?q=tent
//
// or, as a legacy agent, -trust-signature-agent http://127.0.0.1:9090 and
// -agent http://127.0.0.1:9090.
//
// -tamper, -expired, -long, -authority and -replay send what an attacker,
// or a careless agent, would. The signature bases are written out here,
// line by line (RFC 9421 2.5), so that the example shows exactly what is
// signed.
package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

func main() {
	keyFile := flag.String("key", "agent.key", "file holding the agent's Ed25519 seed (hex); created when missing")
	serve := flag.String("serve", "", "publish the key on this host:port: /jwks.json (unsigned JWK Set) and the well-known key directory (signed)")
	agent := flag.String("agent", "", "the Signature-Agent to send: the URL of the JWK Set (-01), or an origin (legacy: its well-known key directory)")
	ua := flag.String("ua", "claude/1.0 (+https://agent.example)", "User-Agent of signed requests")
	tamper := flag.Bool("tamper", false, "flip a byte of the signature")
	expired := flag.Bool("expired", false, "sign with a window that ended an hour ago")
	long := flag.Bool("long", false, "sign for an hour, longer than the demo's policy allows (5 minutes)")
	authority := flag.String("authority", "", "sign for this authority instead of the target's")
	replay := flag.Bool("replay", false, "send the same signed request twice")
	flag.Parse()

	priv, err := loadKey(*keyFile)
	if err != nil {
		log.Fatal(err)
	}
	pub := priv.Public().(ed25519.PublicKey)
	kid := thumbprint(pub)
	if *serve != "" {
		fmt.Printf("key %s: JWK Set http://%s/jwks.json, key directory http://%s/.well-known/http-message-signatures-directory\n", kid, *serve, *serve)
		log.Fatal(http.ListenAndServe(*serve, directory(priv, kid)))
	}
	if *agent == "" || flag.NArg() != 1 {
		log.Fatal("usage: signer -key FILE -serve HOST:PORT | signer -key FILE -agent JWKS-URL|ORIGIN URL")
	}
	target, err := url.Parse(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, target.String(), nil)
	req.Header.Set("User-Agent", *ua)
	now := time.Now()
	if *expired {
		now = now.Add(-time.Hour)
	}
	auth := target.Host
	if *authority != "" {
		auth = *authority
	}
	lifetime := time.Minute
	if *long {
		lifetime = time.Hour
	}
	signRequest(req, priv, kid, *agent, auth, now, lifetime, *tamper)
	for range map[bool]int{false: 1, true: 2}[*replay] {
		if err := send(req); err != nil {
			log.Fatal(err)
		}
	}
}

// signRequest adds Signature-Agent, Signature-Input and Signature: the
// signature covers @method, @authority, @path and its own Signature-Agent
// member, keyed to its label (draft 5.2, 5.2.1: the first two narrow it to
// one request, which the draft recommends), for lifetime, with a fresh
// nonce.
func signRequest(req *http.Request, priv ed25519.PrivateKey, kid, agent, authority string, now time.Time, lifetime time.Duration, tamper bool) {
	agentValue := `"` + agent + `"`
	req.Header.Set("Signature-Agent", "sig1="+agentValue)
	nonce := make([]byte, 32)
	rand.Read(nonce)
	params := fmt.Sprintf(`("@method" "@authority" "@path" "signature-agent";key="sig1");created=%d;expires=%d;keyid="%s";alg="ed25519";nonce="%s";tag="web-bot-auth"`,
		now.Unix(), now.Add(lifetime).Unix(), kid, base64.StdEncoding.EncodeToString(nonce))
	path := req.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	base := `"@method": ` + req.Method + "\n" +
		`"@authority": ` + strings.ToLower(authority) + "\n" +
		`"@path": ` + path + "\n" +
		`"signature-agent";key="sig1": ` + agentValue + "\n" +
		`"@signature-params": ` + params
	sig := ed25519.Sign(priv, []byte(base))
	if tamper {
		sig[0] ^= 1
	}
	req.Header.Set("Signature-Input", "sig1="+params)
	req.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(sig)+":")
}

// directory publishes the public key: at /jwks.json as a JWK Set, the way
// a static host serves a JSON file (application/json, unsigned: the draft
// lets a verifier use a key it fetched itself without a proof, B.1); at
// the well-known URI as a key directory (its media type, 5.5.1), the
// response signed by the key (tag "http-message-signatures-directory",
// covering the request's @authority) to prove whoever serves it holds the
// key (B.1).
func directory(priv ed25519.PrivateKey, kid string) http.Handler {
	x := base64.RawURLEncoding.EncodeToString(priv.Public().(ed25519.PublicKey))
	body := []byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"` + kid + `","x":"` + x + `","use":"sig"}]}`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		switch r.URL.Path {
		case "/jwks.json":
			h.Set("Content-Type", "application/json")
			h.Set("Cache-Control", "max-age=300")
			w.Write(body)
			return
		case "/.well-known/http-message-signatures-directory":
		default:
			http.NotFound(w, r)
			return
		}
		now := time.Now()
		params := fmt.Sprintf(`("@authority";req);created=%d;expires=%d;keyid="%s";alg="ed25519";tag="http-message-signatures-directory"`,
			now.Unix(), now.Add(5*time.Minute).Unix(), kid)
		base := `"@authority";req: ` + strings.ToLower(r.Host) + "\n" + `"@signature-params": ` + params
		sig := ed25519.Sign(priv, []byte(base))
		h.Set("Content-Type", "application/http-message-signatures-directory+json")
		h.Set("Cache-Control", "max-age=300")
		h.Set("Signature-Input", "sig1="+params)
		h.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(sig)+":")
		w.Write(body)
	})
}

func send(req *http.Request) error {
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 300))
	fmt.Printf("%s\nRateLimit-Policy: %s\n%s\n\n", res.Status, res.Header.Get("RateLimit-Policy"), strings.TrimSpace(string(b)))
	return nil
}

// thumbprint is the RFC 7638 JWK SHA-256 thumbprint of an Ed25519 key: the
// keyid Web Bot Auth signatures carry.
func thumbprint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256([]byte(`{"crv":"Ed25519","kty":"OKP","x":"` + base64.RawURLEncoding.EncodeToString(pub) + `"}`))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// loadKey reads the seed in file, or makes one and writes it there.
func loadKey(file string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		seed := make([]byte, ed25519.SeedSize)
		rand.Read(seed)
		if err := os.WriteFile(file, []byte(hex.EncodeToString(seed)), 0o600); err != nil {
			return nil, err
		}
		return ed25519.NewKeyFromSeed(seed), nil
	}
	if err != nil {
		return nil, err
	}
	seed, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%s: not a hex Ed25519 seed", file)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}
