package main

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/verify"
)

// credentials are the tokens and keys serve checks the declared auth of
// capabilities with (draft-car 2.5 Auth), read from -tokens, -tokens-env
// and -hmac-keys:
//
//   - bearer-token and api-key capabilities: the SHA-256 of each token a
//     capability accepts. A token is hashed as it is read and only its
//     hash is kept; a presented credential is hashed and compared with
//     each of the capability's hashes in constant time
//     (subtle.ConstantTimeCompare), so neither the comparison's time nor a
//     memory dump gives a token away.
//   - hmac capabilities: the keys of HTTP Message Signatures (RFC 9421) by
//     keyid, which agentready.WithRequestSignatures verifies with.
type credentials struct {
	// tokens are the hashes per capability ID.
	tokens map[string][][sha256.Size]byte
	// keys are the request-signing keys by keyid.
	keys map[string]verify.RequestKey
}

// credentialSources are where credentials are read from.
type credentialSources struct {
	tokensFile, tokensEnv, keysFile string
}

// readCredentials reads the tokens and keys the sources name. A problem is
// an error naming the source and the line.
func readCredentials(src credentialSources) (*credentials, error) {
	c := &credentials{tokens: map[string][][sha256.Size]byte{}, keys: map[string]verify.RequestKey{}}
	var errs []error
	if src.tokensFile != "" {
		b, err := os.ReadFile(src.tokensFile)
		if err != nil {
			return nil, fmt.Errorf("-tokens: %w", err)
		}
		errs = append(errs, c.addTokens(src.tokensFile, string(b))...)
	}
	if src.tokensEnv != "" {
		v, ok := os.LookupEnv(src.tokensEnv)
		if !ok {
			return nil, fmt.Errorf("-tokens-env: the environment has no variable %s", src.tokensEnv)
		}
		errs = append(errs, c.addTokens("$"+src.tokensEnv, v)...)
	}
	if src.keysFile != "" {
		b, err := os.ReadFile(src.keysFile)
		if err != nil {
			return nil, fmt.Errorf("-hmac-keys: %w", err)
		}
		errs = append(errs, c.addKeys(src.keysFile, string(b))...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// entries splits a list of credentials into "NAME=VALUE" entries, one a
// line or separated by commas; blank lines and lines starting with # are
// skipped. Each is returned with its line number.
func entries(text string, each func(line int, name, value string) error) []error {
	var errs []error
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, e := range strings.Split(line, ",") {
			if e = strings.TrimSpace(e); e == "" {
				continue
			}
			name, value, ok := strings.Cut(e, "=")
			name, value = strings.TrimSpace(name), strings.TrimSpace(value)
			if !ok || name == "" || value == "" {
				errs = append(errs, fmt.Errorf("line %d: want NAME=VALUE", i+1))
				continue
			}
			if err := each(i+1, name, value); err != nil {
				errs = append(errs, fmt.Errorf("line %d: %s: %w", i+1, name, err))
			}
		}
	}
	return errs
}

// addTokens reads "CAPABILITY=TOKEN" entries; TOKEN may be given as
// "sha256:" and the 64 hex digits of its SHA-256, so that the token itself
// need not be on the proxy's disk.
func (c *credentials) addTokens(source, text string) []error {
	errs := entries(text, func(_ int, id, tok string) error {
		var h [sha256.Size]byte
		if hx, ok := strings.CutPrefix(tok, "sha256:"); ok {
			b, err := hex.DecodeString(hx)
			if err != nil || len(b) != sha256.Size {
				return errors.New("sha256: wants the 64 hex digits of a SHA-256")
			}
			copy(h[:], b)
		} else {
			h = sha256.Sum256([]byte(tok))
		}
		c.tokens[id] = append(c.tokens[id], h)
		return nil
	})
	return prefix(source, errs)
}

// addKeys reads "KEYID=ALGORITHM:BASE64" entries: hmac-sha256 (RFC 9421
// 3.3.3, HMAC of RFC 2104 with the shared secret) with a secret of at
// least 32 bytes (RFC 2104 section 3: a key shorter than the hash's output
// "is strongly discouraged"), or ed25519 (RFC 9421 3.3.6) with the 32-byte
// public key.
func (c *credentials) addKeys(source, text string) []error {
	errs := entries(text, func(_ int, id, v string) error {
		alg, b64, ok := strings.Cut(v, ":")
		if !ok {
			return errors.New("want ALGORITHM:BASE64 (hmac-sha256 or ed25519)")
		}
		b, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return fmt.Errorf("the key is not standard base64: %w", err)
		}
		if _, dup := c.keys[id]; dup {
			return errors.New("keyid given twice")
		}
		switch alg {
		case "hmac-sha256":
			if len(b) < sha256.Size {
				return fmt.Errorf("an hmac-sha256 secret of %d bytes: want at least %d", len(b), sha256.Size)
			}
			c.keys[id] = verify.RequestKey{Algorithm: alg, Secret: b}
		case "ed25519":
			if len(b) != ed25519.PublicKeySize {
				return fmt.Errorf("an ed25519 public key of %d bytes: want %d", len(b), ed25519.PublicKeySize)
			}
			c.keys[id] = verify.RequestKey{Algorithm: alg, Public: ed25519.PublicKey(b)}
		default:
			return fmt.Errorf("algorithm %q: want hmac-sha256 or ed25519", alg)
		}
		return nil
	})
	return prefix(source, errs)
}

func prefix(source string, errs []error) []error {
	for i, err := range errs {
		errs[i] = fmt.Errorf("%s: %w", source, err)
	}
	return errs
}

// fit checks the credentials against site, the declaration of file: a
// token must name a capability declaring bearer-token or api-key; keys need
// a capability declaring hmac, and such a capability needs keys (without
// them agentready.New refuses it, and so does lint).
func (c *credentials) fit(site *config.Site, lines config.Lines) (problems []error) {
	if errs := c.check(site); len(errs) > 0 {
		problems = append(problems, &config.FileError{Line: lines["Serve"], Field: "serve", Msg: errors.Join(errs...).Error()})
	}
	if len(c.keys) == 0 {
		for i, cp := range site.Capabilities {
			if cp.Auth.Type == config.AuthHMAC {
				problems = append(problems, &config.FileError{Line: lines[fmt.Sprintf("Capabilities[%d].Auth.Type", i)],
					Field: fmt.Sprintf("capabilities[%d].auth.type", i),
					Msg:   "hmac asks for a signed request (RFC 9421) and no key is given to verify one: give the keys in serve: {hmac_keys_file: FILE} (or -hmac-keys FILE), or declare another auth type"})
			}
		}
	}
	return problems
}

// check refuses tokens for a capability the site does not declare, or that
// does not declare bearer-token or api-key (oauth2 tokens are the
// authorization server's to check), and keys for a site without an hmac
// capability: a credential that nothing would check is a mistake to say.
func (c *credentials) check(site *config.Site) []error {
	auth := map[string]string{}
	hmac := false
	for _, cp := range site.Capabilities {
		auth[cp.ID] = cp.Auth.Type
		hmac = hmac || cp.Auth.Type == config.AuthHMAC
	}
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(c.tokens)) {
		t, ok := auth[id]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("tokens for capability %q, which the declaration does not have", id))
		case t != config.AuthBearerToken && t != config.AuthAPIKey:
			errs = append(errs, fmt.Errorf("tokens for capability %q, whose auth is %q: tokens are checked for bearer-token and api-key", id, cmp.Or(t, config.AuthNone)))
		}
	}
	if len(c.keys) > 0 && !hmac {
		errs = append(errs, errors.New("-hmac-keys: no capability declares auth hmac"))
	}
	return errs
}

// errUnknownToken is the 401 detail of a credential no token matches.
var errUnknownToken = errors.New("the credential is not one this site accepts")

// authenticator checks credentials against the tokens held in cur, which a
// reload swaps. A capability without tokens is checked for the
// credential's presence only, as agentready does without an
// Authenticator (serve says which at start); an hmac capability reaching
// it has no -hmac-keys and is refused.
func authenticator(cur *atomic.Pointer[credentials]) func(*http.Request, *config.Capability, string) error {
	return func(_ *http.Request, cp *config.Capability, credential string) error {
		if cp.Auth.Type == config.AuthHMAC {
			return errors.New("this site holds no keys to verify request signatures with")
		}
		hashes := cur.Load().tokens[cp.ID]
		if hashes == nil {
			return nil
		}
		h := sha256.Sum256([]byte(credential))
		match := 0
		// Every hash is compared, so that the time taken does not say
		// which one matched.
		for i := range hashes {
			match |= subtle.ConstantTimeCompare(h[:], hashes[i][:])
		}
		if match == 1 {
			return nil
		}
		return errUnknownToken
	}
}

// requestKeys looks keys up in cur, which a reload swaps.
func requestKeys(cur *atomic.Pointer[credentials]) verify.RequestKeys {
	return func(_ context.Context, keyID string) (verify.RequestKey, error) {
		if k, ok := cur.Load().keys[keyID]; ok {
			return k, nil
		}
		return verify.RequestKey{}, fmt.Errorf("unknown keyid %q", keyID)
	}
}

// unchecked are the capabilities of site whose declared credentials serve
// checks for presence only: bearer-token, api-key and oauth2 ones without
// tokens.
func (c *credentials) unchecked(site *config.Site) []string {
	var ids []string
	for _, cp := range site.Capabilities {
		switch cp.Auth.Type {
		case config.AuthBearerToken, config.AuthAPIKey, config.AuthOAuth2:
			if c.tokens[cp.ID] == nil {
				ids = append(ids, cp.ID)
			}
		}
	}
	return ids
}
