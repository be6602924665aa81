// Command stdlib is a demo site on net/http: the Outdoor Supply Co. of
// draft-car Appendix A, published and enforced by agentready.
//
//	go run ./examples/stdlib -addr 127.0.0.1:8080
package main

import (
	"flag"
	"log"
	"net/http"
	"os"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/examples/internal/demo"
)

func main() {
	addr := flag.String("addr", ":8080", "address to listen on (host:port)")
	flag.Parse()

	m, err := agentready.New(demo.Site())
	if err != nil {
		log.Fatal(err)
	}
	app := demo.NewApp()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/search", app.Search)
	mux.HandleFunc("/mcp", app.MCP)
	mux.HandleFunc("POST /auth/token", app.Token)
	mux.HandleFunc("/admin/", app.Private)
	mux.HandleFunc("/internal/", app.Private)
	mux.HandleFunc("/", app.Home)

	if err := demo.Serve(*addr, m.Handler(mux), os.Stdout); err != nil {
		log.Fatal(err)
	}
}
