// Command signer is a Web Bot Auth agent for the demo: it publishes its key
// directory and sends requests signed with that key (RFC 9421, tag
// "web-bot-auth", draft-meunier-webbotauth-httpsig-protocol), so that a
// site running agentready with a verified-only policy can be tried by hand.
//
// Start the agent's key directory, then the demo trusting it, then sign:
//
//	go run ./examples/signer -key /tmp/agent.key -serve 127.0.0.1:9090 &
//	go run ./examples/stdlib -addr 127.0.0.1:8080 -trust-signature-agent http://127.0.0.1:9090 &
//	go run ./examples/signer -key /tmp/agent.key -agent http://127.0.0.1:9090 http://127.0.0.1:8080/api/search?q=tent
//
// -tamper, -expired, -authority and -replay send what an attacker would.
// The signature bases are written out here, line by line (RFC 9421 2.5),
// so that the example shows exactly what is signed.
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
	serve := flag.String("serve", "", "serve the key directory on this host:port")
	agent := flag.String("agent", "", "the Signature-Agent origin (where -serve publishes the directory)")
	ua := flag.String("ua", "claude/1.0 (+https://agent.example)", "User-Agent of signed requests")
	tamper := flag.Bool("tamper", false, "flip a byte of the signature")
	expired := flag.Bool("expired", false, "sign with a window that ended an hour ago")
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
		fmt.Printf("key directory of key %s on http://%s/.well-known/http-message-signatures-directory\n", kid, *serve)
		log.Fatal(http.ListenAndServe(*serve, directory(priv, kid)))
	}
	if *agent == "" || flag.NArg() != 1 {
		log.Fatal("usage: signer -key FILE -serve HOST:PORT | signer -key FILE -agent ORIGIN URL")
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
	signRequest(req, priv, kid, *agent, auth, now, *tamper)
	for range map[bool]int{false: 1, true: 2}[*replay] {
		if err := send(req); err != nil {
			log.Fatal(err)
		}
	}
}

// signRequest adds Signature-Agent, Signature-Input and Signature: the
// signature covers @authority and the Signature-Agent member, as the
// protocol draft asks, for one minute, with a fresh nonce.
func signRequest(req *http.Request, priv ed25519.PrivateKey, kid, agent, authority string, now time.Time, tamper bool) {
	agentValue := `"` + agent + `"`
	req.Header.Set("Signature-Agent", "sig1="+agentValue)
	nonce := make([]byte, 32)
	rand.Read(nonce)
	params := fmt.Sprintf(`("@authority" "signature-agent";key="sig1");created=%d;expires=%d;keyid="%s";alg="ed25519";nonce="%s";tag="web-bot-auth"`,
		now.Unix(), now.Add(time.Minute).Unix(), kid, base64.StdEncoding.EncodeToString(nonce))
	base := `"@authority": ` + strings.ToLower(authority) + "\n" +
		`"signature-agent";key="sig1": ` + agentValue + "\n" +
		`"@signature-params": ` + params
	sig := ed25519.Sign(priv, []byte(base))
	if tamper {
		sig[0] ^= 1
	}
	req.Header.Set("Signature-Input", "sig1="+params)
	req.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(sig)+":")
}

// directory serves the key directory: the public key as a JWK, the
// response signed by that key (tag "http-message-signatures-directory",
// covering the request's @authority) to prove that whoever serves it holds
// the key.
func directory(priv ed25519.PrivateKey, kid string) http.Handler {
	x := base64.RawURLEncoding.EncodeToString(priv.Public().(ed25519.PublicKey))
	body := []byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + x + `"}]}`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/http-message-signatures-directory" {
			http.NotFound(w, r)
			return
		}
		now := time.Now()
		params := fmt.Sprintf(`("@authority";req);created=%d;expires=%d;keyid="%s";alg="ed25519";tag="http-message-signatures-directory"`,
			now.Unix(), now.Add(5*time.Minute).Unix(), kid)
		base := `"@authority";req: ` + strings.ToLower(r.Host) + "\n" + `"@signature-params": ` + params
		sig := ed25519.Sign(priv, []byte(base))
		h := w.Header()
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
