package agentsjson

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/agentready/agentready/config"
)

// FuzzRender feeds arbitrary text into the declaration. Whatever the text,
// the renderers must not panic, and what they return must be JSON that
// carries the text back unchanged, byte-identical on a second call.
func FuzzRender(f *testing.F) {
	f.Add("Shop", "https://shop.example", "search", "https://shop.example/api/{q}", "q", "a <b> & \"c\"\n")
	f.Add("", "", "", "", "", "")
	f.Add("\xff\xfe", "http://[::1]:80", "cart.add", "//x", "é", "\u2028")
	f.Fuzz(func(t *testing.T, name, url, id, endpoint, param, text string) {
		s := config.Site{
			Name: name, URL: url, Description: text,
			Capabilities: []config.Capability{{ID: id, Description: text, Endpoint: endpoint,
				Params: []config.Param{{Name: param, Description: text, Default: text}}}},
			Agents:   []config.AgentPolicy{{Name: text, Capabilities: []string{id}}},
			Metadata: map[string]string{text: text},
		}
		for _, render := range []func(*config.Site) ([]byte, error){DraftCar, V010} {
			doc, err := render(&s)
			if err != nil {
				continue
			}
			again, _ := render(&s)
			if !bytes.Equal(doc, again) {
				t.Fatal("not deterministic")
			}
			var v map[string]any
			if err := json.Unmarshal(doc, &v); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, doc)
			}
			site := v["site"].(map[string]any)
			// encoding/json replaces invalid UTF-8, byte by byte.
			if got := site["name"]; utf8.ValidString(name) && got != name {
				t.Fatalf("site name %q came back as %q", name, got)
			}
		}
	})
}
