// Command server is the load-test target of bench/run: a small handler
// served bare or behind agentready (the Appendix A declaration with limits
// high enough that a load run never reaches 429), on loopback.
package main

import (
	"flag"
	"io"
	"log"
	"net"
	"net/http"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18181", "loopback address to listen on")
	bare := flag.Bool("bare", false, "serve without agentready")
	flag.Parse()

	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		log.Fatalf("-addr %q: load runs stay on loopback", *addr)
	}
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"results":[{"id":"tent-2p","name":"Ridgeline 2-Person Tent"}]}`)
	})
	if !*bare {
		site := fixtures.OutdoorSupply()
		site.Capabilities[0].RateLimit = config.PerSecond(1 << 30)
		site.Agents[1].RateLimit = config.PerSecond(1 << 30)
		h = agentready.MustNew(site).Handler(h)
	}
	log.Printf("listening on http://%s (bare=%v)", *addr, *bare)
	log.Fatal(http.ListenAndServe(*addr, h))
}
