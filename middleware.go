package agentready

import (
	"errors"
	"net/http"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/publish"
)

// Middleware publishes a site's declaration in every agent-discovery format
// and enforces it. It is immutable after New and safe for concurrent use.
type Middleware struct {
	site config.Site
	docs *publish.Handler
}

// New validates the declaration and the options, reports every problem at
// once (a *config.ValidationError, joined with any option errors), renders
// every document once and returns the Middleware.
func New(site config.Site, opts ...Option) (*Middleware, error) {
	var st settings
	var errs []error
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&st); err != nil {
			errs = append(errs, err)
		}
	}
	if err := config.Validate(&site, st.formats); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	docs, err := publish.Render(&site, publish.Options{
		Formats:        st.formats,
		DescriptorPath: st.descriptorPath,
		MaxAge:         st.maxAge,
		LastModified:   st.lastModified,
	})
	if err != nil {
		return nil, err
	}
	h, err := publish.NewHandler(docs)
	if err != nil {
		return nil, err
	}
	return &Middleware{site: site, docs: h}, nil
}

// MustNew is New that panics on error, for declarations fixed at compile
// time (the way regexp.MustCompile is used). Never call it while serving.
func MustNew(site config.Site, opts ...Option) *Middleware {
	m, err := New(site, opts...)
	if err != nil {
		panic("agentready: " + err.Error())
	}
	return m
}

// Handler serves the discovery documents and passes every other request to
// next.
func (m *Middleware) Handler(next http.Handler) http.Handler {
	return m.docs.Wrap(next)
}

// Publisher serves only the discovery documents (404 for anything else), for
// sites that mount them on their own router.
func (m *Middleware) Publisher() http.Handler { return m.docs }
