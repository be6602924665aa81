package main

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sync"
	"time"

	"github.com/agentready/agentready/internal/clock"
)

// recorder holds what the Middleware answered to a subrequest's request:
// its status, headers and body, which are then passed on as they are, or
// kept for nginx to fetch (answerStore). A refusal's problem is small; a
// body over maxRecorded is cut there (a document, which forward-auth
// never passes on).
type recorder struct {
	header http.Header
	status int
	body   []byte
}

const maxRecorded = 64 << 10

func newRecorder() *recorder { return &recorder{header: http.Header{}} }

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	if room := maxRecorded - len(r.body); room > 0 {
		r.body = append(r.body, b[:min(len(b), room)]...)
	}
	return len(b), nil
}

// replay writes what r holds to w.
func (r *recorder) replay(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range r.header {
		h[k] = v
	}
	w.WriteHeader(max(r.status, http.StatusOK))
	_, _ = w.Write(r.body)
}

// answerStore keeps the refusals an nginx subrequest stood for until
// nginx's error_page location fetches each, once, by its reference: at
// most answersKept, each for answerTTL (nginx asks at once; a reference
// never fetched is forgotten).
type answerStore struct {
	mu   sync.Mutex
	byID map[string]storedAnswer
	// ring holds the references in the order they were made: the oldest
	// is forgotten when a new one takes its slot.
	ring [answersKept]string
	next int
	now  clock.Func
}

type storedAnswer struct {
	rec     *recorder
	expires time.Time
}

const (
	answersKept = 4096
	answerTTL   = 30 * time.Second
)

func newAnswerStore() *answerStore {
	// The expiry is a wait, on the monotonic clock.
	return &answerStore{byID: make(map[string]storedAnswer), now: clock.Monotonic}
}

// put keeps rec and returns its reference: 128 random bits, so that no
// one guesses another client's refusal.
func (s *answerStore) put(rec *recorder) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	ref := hex.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, s.ring[s.next])
	s.ring[s.next] = ref
	s.next = (s.next + 1) % answersKept
	s.byID[ref] = storedAnswer{rec, s.now().Add(answerTTL)}
	return ref, nil
}

// take returns the refusal of ref and forgets it.
func (s *answerStore) take(ref string) (*recorder, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.byID[ref]
	if !ok {
		return nil, false
	}
	delete(s.byID, ref)
	if s.now().After(a.expires) {
		return nil, false
	}
	return a.rec, true
}
