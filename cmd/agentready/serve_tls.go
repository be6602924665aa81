package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
)

// tlsFiles are -tls-cert and -tls-key: the public listener serves TLS
// (HTTP/2 and HTTP/1.1, chosen by ALPN) when both are given.
type tlsFiles struct{ cert, key string }

// certificate is the public listener's certificate, read from its files at
// start and again on every SIGHUP (docs/operations.md, "TLS"): handshakes
// read the current one (tls.Config.GetCertificate), a reload swaps it
// whole, and a reload that fails keeps the one serving.
type certificate struct {
	files tlsFiles
	cur   atomic.Pointer[tls.Certificate]
}

// loadCertificate reads f's certificate and key; nil without -tls-cert
// and -tls-key, an error with one of them only or with files that do not
// make a certificate.
func loadCertificate(f tlsFiles) (*certificate, error) {
	switch {
	case f.cert == "" && f.key == "":
		return nil, nil
	case f.cert == "" || f.key == "":
		return nil, errors.New("-tls-cert and -tls-key go together: give both or neither")
	}
	c := &certificate{files: f}
	if err := c.reload(); err != nil {
		return nil, err
	}
	return c, nil
}

// reload reads the files again; on an error the certificate serving is
// kept.
func (c *certificate) reload() error {
	kp, err := tls.LoadX509KeyPair(c.files.cert, c.files.key)
	if err != nil {
		return fmt.Errorf("-tls-cert %s, -tls-key %s: %w", c.files.cert, c.files.key, err)
	}
	c.cur.Store(&kp)
	return nil
}

// logReload is reload, its outcome logged.
func (c *certificate) logReload(l *slog.Logger) {
	if c == nil {
		return
	}
	if err := c.reload(); err != nil {
		l.Error("agentready serve: the TLS certificate was not reloaded; the running one keeps serving", "err", err)
		return
	}
	l.Info("agentready serve: TLS certificate reloaded", "cert", c.files.cert)
}

// config is the public listener's TLS: TLS 1.2 at least, and HTTP/2 and
// HTTP/1.1 offered by ALPN. net/http serves HTTP/2 on a TLS listener
// whose server leaves TLSNextProto nil (newServer does), and an HTTP/2
// request reaches the handler as an HTTP/1.1 one does, :authority as
// r.Host and :path as r.URL and r.RequestURI (RFC 9113 8.3.1): the Host
// and canonical-target rules decide on it alike.
func (c *certificate) config() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"h2", "http/1.1"},
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return c.cur.Load(), nil
		},
	}
}
