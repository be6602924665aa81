package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// Site is the declaration of the demo: the Outdoor Supply Co. of draft-car
// Appendix A (internal/testing/fixtures has the literal) with its usage
// preferences. examples/stdlib/site.yaml is the same declaration as a file.
func Site() config.Site {
	site := fixtures.OutdoorSupply()
	// What the catalog may be used for: search yes, training no. Published
	// in the generated robots.txt (Content-Usage, Content-Signal) and as a
	// Content-Usage header on every response.
	site.Usage = config.Usage{Train: config.Denied, Search: config.Allowed}
	return site
}

// Serve listens on addr, says where on out, and serves h until SIGINT or
// SIGTERM, then shuts down gracefully.
func Serve(addr string, h http.Handler, out io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Outdoor Supply Co. demo listening on http://%s\n", ln.Addr())
	fmt.Fprintf(out, "  try: curl http://%s/.well-known/agents.txt\n", ln.Addr())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
