package publish

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/publish/agentsjson"
	"github.com/agentready/agentready/internal/publish/agentsmd"
	"github.com/agentready/agentready/internal/publish/agentstxt"
	"github.com/agentready/agentready/internal/publish/agenturi"
	"github.com/agentready/agentready/internal/publish/awp"
	"github.com/agentready/agentready/internal/publish/cards"
	"github.com/agentready/agentready/internal/publish/discovery"
	"github.com/agentready/agentready/internal/publish/resourcemeta"
	"github.com/agentready/agentready/internal/resolve"
)

// defaultDescriptorPath is where agent:// descriptors are served; "{name}"
// is replaced by the agent's name (docs/design.md collision 3: never at
// /agent.json, which is AWP's).
const defaultDescriptorPath = "/agents/{name}/agent.json"

// Options say how a declaration is published.
type Options struct {
	// Formats selects the dialect, the agents.json owner and the documents.
	Formats config.Formats
	// DescriptorPath is the path template of agent:// descriptors; it must
	// contain "{name}". Default defaultDescriptorPath.
	DescriptorPath string
	// MaxAge overrides the Cache-Control max-age of a document kind.
	MaxAge map[config.Document]time.Duration
	// LastModified is sent as Last-Modified. Default: Site.GeneratedAt when
	// set, else the zero time, which Render replaces by the time of the call.
	LastModified time.Time
	// DescriptorKey, when set, signs every agent:// descriptor response
	// (agent-uri-03 10.3, conformance level 3): see signDescriptor. It must
	// be a P-256 key. It also signs the A2A v1.0 agent card (A2A 1.0 8.4).
	DescriptorKey *ecdsa.PrivateKey
	// A2AVersion is the A2A agent card's version: cards.A2AVersion10 (the
	// default when empty) or cards.A2AVersion03, for clients that have not
	// moved to 1.0.
	A2AVersion string
}

func (o *Options) descriptorPath() string {
	if o.DescriptorPath == "" {
		return defaultDescriptorPath
	}
	return o.DescriptorPath
}

// descriptorPathFor is the path an agent's descriptor is served at.
func (o *Options) descriptorPathFor(name string) string {
	return strings.ReplaceAll(o.descriptorPath(), "{name}", name)
}

func (o *Options) maxAge(d config.Document, def time.Duration) time.Duration {
	if v, ok := o.MaxAge[d]; ok {
		return v
	}
	return def
}

// Formats are the discovery formats, in the order their documents are
// served. A new format is its package and one entry here.
var Formats = []discovery.Format{
	agentstxt.Format,
	agentsjson.Format,
	agentsmd.Format,
	awp.Format,
	agenturi.Format,
	cards.Format,
	resourcemeta.Format,
}

// Render renders every document the options publish for a validated site.
// It is called once, at construction; the result is served as is. Every
// format renders, and the errors of all that fail are reported together
// (errors.Join), as Validate reports every problem.
func Render(s *config.Site, o Options) ([]Document, error) {
	if !strings.Contains(o.descriptorPath(), "{name}") || !strings.HasPrefix(o.descriptorPath(), "/") {
		return nil, fmt.Errorf("publish: descriptor path %q must start with / and contain {name}", o.descriptorPath())
	}
	env, err := o.env(s)
	if err != nil {
		return nil, err
	}
	var docs []Document
	var errs []error
	for _, f := range Formats {
		if !o.Formats.Serves(f.Kind()) {
			continue
		}
		out, err := f.Render(s, env)
		if err != nil {
			errs = append(errs, fmt.Errorf("publish: %w", err))
			continue
		}
		for _, d := range out {
			d.MaxAge, d.LastModified = o.maxAge(f.Kind(), d.MaxAge), env.LastModified
			docs = append(docs, d)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return docs, nil
}

// env is what the formats render with: the Last-Modified time, the
// descriptors' URLs and the signing key.
func (o *Options) env(s *config.Site) (*discovery.Env, error) {
	lm := o.LastModified
	if lm.IsZero() {
		lm = s.GeneratedAt
	}
	if lm.IsZero() {
		lm = clock.Wall()
	}
	lm = lm.UTC().Truncate(time.Second)
	env := &discovery.Env{
		Formats:        o.Formats,
		LastModified:   lm,
		DescriptorPath: o.descriptorPathFor,
		DescriptorURL:  func(name string) string { return resolve.Origin(s) + o.descriptorPathFor(name) },
		A2AVersion:     o.A2AVersion,
	}
	if key := o.DescriptorKey; key != nil {
		jwks, kid, err := descriptorJWKS(key)
		if err != nil {
			return nil, fmt.Errorf("publish: descriptor key: %w", err)
		}
		env.Key, env.KeyID, env.JWKS = key, kid, jwks
		env.SignDescriptor = func(get, head http.Header, body []byte, ctype string) error {
			if err := signDescriptor(get, body, ctype, key, kid, lm); err != nil {
				return err
			}
			return signDescriptorHead(head, body, ctype, key, kid, lm)
		}
	}
	return env, nil
}
