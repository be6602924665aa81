package routertest

import (
	"net/http/httptest"
	"testing"
)

// TestRouterInvariantEndToEnd sends raw requests through a real net/http
// server, for the targets whose parse the server might treat differently
// from ReadRequest alone, and checks that the real server path gives the
// same routing and the same decision as the in-memory check.
func TestRouterInvariantEndToEnd(t *testing.T) {
	fx := routerInvariantFixture(t)
	specs := []reqSpec{
		{method: "GET", target: "http://host/admin/..%2Fapi"},
		{method: "GET", target: "http://example.com/admin/x"},
		{method: "GET", target: "/admin/..%2Fapi/search"},
		{method: "GET", target: "/admin%2Fx"},
		{method: "GET", target: "/x/%2e%2e/admin/y"},
		{method: "GET", target: "/a%3Bb/x"},
		{method: "GET", target: "/%61dmin/x"},
		{method: "GET", target: "/api/s%65arch"},
		{method: "POST", target: "/api/orders/7"},
		{method: "GET", target: "/api/search"},
		{method: "GET", target: "/secret/"},
		{method: "GET", target: "/secret.html"},
		{method: "GET", target: "/admin/users?.css"},
		{method: "POST", target: "/api/orders/7/"},
		{method: "POST", target: "/api/orders/7", headers: [][2]string{{"X-HTTP-Method-Override", "DELETE"}}},
		{method: "POST", target: "/api/orders/7", form: "_method=DELETE"},
		{method: "delete", target: "/api/orders/7"},
	}
	for _, st := range fx.stacks {
		bareSrv := httptest.NewServer(st.bare)
		wrappedSrv := httptest.NewServer(st.wrapped)
		for _, s := range specs {
			for _, p := range invProfiles {
				bare, err := rawRoundTrip(bareSrv, s, p)
				if err != nil {
					t.Errorf("[%s] bare %s: %v", st.name, s, err)
					continue
				}
				got, err := rawRoundTrip(wrappedSrv, s, p)
				if err != nil {
					t.Errorf("[%s] %s: %v", st.name, s, err)
					continue
				}
				for _, v := range violations(p, bare, got) {
					t.Errorf("[%s] end to end %s (%s): bare: %s; agentready: %s: %s", st.name, s, p.name, bare, got, v)
				}
				// The real server routes and decides as the in-memory parse does.
				req, ok := parseRequest(s, p)
				if !ok {
					t.Errorf("[%s] ReadRequest rejects %s, which the server accepted", st.name, s)
					continue
				}
				mem := serveOne(st.wrapped, req)
				req, _ = parseRequest(s, p)
				memBare := serveOne(st.bare, req)
				if mem.status != got.status || mem.served != got.served || memBare.status != bare.status || memBare.served != bare.served {
					t.Errorf("[%s] %s (%s): server %s / bare %s, in memory %s / bare %s", st.name, s, p.name, got, bare, mem, memBare)
				}
			}
		}
		bareSrv.Close()
		wrappedSrv.Close()
	}
}
