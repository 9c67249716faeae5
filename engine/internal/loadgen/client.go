package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/perfgate/perfgate/engine/internal/load"
)

// Remote is a generator on a load-generator server, reached at serverURL
// with client (the API server's pod proxy and its credentials) and the
// run's token. It implements load.Attacker, and load.DuetAttacker for a
// duet's generator (NewGenerator.DuetURL).
type Remote struct {
	server endpoint
	id     string
}

// endpoint is where a load-generator server is and how to call it.
type endpoint struct {
	url    string
	client *http.Client
	token  string
}

// Create makes a generator on the server for the service at spec.URL (and
// the duet's other at spec.DuetURL), as the server sees them, and waits
// until the server reaches spec.Ready on each.
func Create(ctx context.Context, serverURL string, client *http.Client, token string, spec NewGenerator) (*Remote, error) {
	s := endpoint{url: serverURL, client: client, token: token}
	var created struct{ ID string }
	if err := s.call(ctx, http.MethodPost, "/generators", spec, &created); err != nil {
		return nil, err
	}
	return &Remote{server: s, id: created.ID}, nil
}

// Attack runs one attack on the server and writes its results to a.Out:
// the first service's summary and results.
func (r *Remote) Attack(ctx context.Context, a load.Attack) (load.Summary, error) {
	if a.Out != nil {
		a.Outs = []io.Writer{a.Out}
	}
	summaries, err := r.AttackAll(ctx, a)
	if len(summaries) == 0 {
		return load.Summary{}, err
	}
	return summaries[0], err
}

// AttackAll runs one attack on the server and returns a summary per
// service (a duet's two), writing each service's results to its writer
// of a.Outs (none when a.Outs is empty).
func (r *Remote) AttackAll(ctx context.Context, a load.Attack) ([]load.Summary, error) {
	keep := false
	for _, w := range a.Outs {
		keep = keep || w != nil
	}
	req := AttackRequest{Name: a.Name, Duration: a.Duration, CountFrom: -1, KeepResults: keep, OpenPool: a.OpenPool}
	if !a.CountFrom.IsZero() {
		req.CountFrom = max(0, time.Until(a.CountFrom))
	}
	var resp AttackResponse
	if err := r.server.call(ctx, http.MethodPost, "/generators/"+r.id+"/attack", req, &resp); err != nil {
		return nil, err
	}
	if keep && len(resp.Results) != len(resp.Summaries) {
		return resp.Summaries, fmt.Errorf("the in-cluster load generator answered %d summaries and %d results streams", len(resp.Summaries), len(resp.Results))
	}
	for i, w := range a.Outs {
		if w == nil || i >= len(resp.Results) {
			continue
		}
		if _, err := w.Write(resp.Results[i]); err != nil {
			return resp.Summaries, fmt.Errorf("write vegeta results: %w", err)
		}
	}
	if resp.Error != "" {
		return resp.Summaries, errors.New("the in-cluster load generator: " + resp.Error)
	}
	return resp.Summaries, nil
}

// Close removes the generator from the server (best effort).
func (r *Remote) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = r.server.call(ctx, http.MethodDelete, "/generators/"+r.id, nil, nil)
}

func (s endpoint) call(ctx context.Context, method, path string, body, out any) error {
	var buf bytes.Buffer
	if body != nil {
		// Unescaped HTML keeps bodies with <, > and & from growing sixfold.
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(body); err != nil {
			return err
		}
	}
	url := s.url + path
	req, err := http.NewRequestWithContext(ctx, method, url, &buf)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(TokenHeader, s.token)
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("load generator %s: %w", method, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 512<<20))
	if err != nil {
		return fmt.Errorf("load generator %s: %w", method, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("load generator %s %s: %s: %s", method, url, resp.Status, bytes.TrimSpace(data))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}
