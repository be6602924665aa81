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
)

// DefaultAddr is the demos' -addr default: loopback only, so that a demo
// started to try agentready is reachable from this machine alone; give
// -addr :8080 to listen on every interface.
const DefaultAddr = "127.0.0.1:8080"

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
