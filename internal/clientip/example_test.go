package clientip_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/agentready/agentready/internal/clientip"
)

// Behind a load balancer at 10.0.0.5, X-Forwarded-For is read from the
// right; what the client wrote on the left is ignored.
func ExampleResolver() {
	ips, err := clientip.New([]string{"10.0.0.0/8"})
	if err != nil {
		panic(err)
	}
	r := httptest.NewRequest(http.MethodGet, "/api/search", nil)
	r.RemoteAddr = "10.0.0.5:41000"
	r.Header.Set("X-Forwarded-For", "6.6.6.6, 2001:db8:aa:bb::17, 10.0.0.9")
	a := ips.Addr(r)
	fmt.Println(a)

	r.RemoteAddr = "198.51.100.3:5000" // not a proxy: the header is ignored
	fmt.Println(ips.Addr(r))
	// Output:
	// 2001:db8:aa:bb::17
	// 198.51.100.3
}
