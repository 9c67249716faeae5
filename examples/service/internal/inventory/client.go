package inventory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// ErrNotFound reports that the inventory service does not know the product.
var ErrNotFound = errors.New("inventory: product not found")

// Level is the inventory service's answer for one product. It is also the
// wire format of GET /inventory/{id}.
type Level struct {
	ID        int `json:"id"`
	Available int `json:"available"`
}

// Client calls the inventory service over HTTP.
//
// A Client owns one http.Client, and therefore one connection pool, for its
// whole life. Create it once at start-up and share it: creating one per
// call would dial a fresh TCP connection for every request.
type Client struct {
	baseURL string
	http    *http.Client
}

// maxIdleConnsPerHost is how many keep-alive connections the pool keeps to
// the inventory service. net/http's default of 2 is far below the number of
// concurrent orders under load, which makes the pool close and re-dial
// connections constantly.
const maxIdleConnsPerHost = 64

// NewClient returns a Client for the inventory service at baseURL
// (for example "http://127.0.0.1:8080"). timeout bounds each call end to
// end, including connecting and reading the body.
func NewClient(baseURL string, timeout time.Duration) *Client {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConns = maxIdleConnsPerHost
	transport.MaxIdleConnsPerHost = maxIdleConnsPerHost
	return &Client{
		baseURL: baseURL,
		http:    &http.Client{Transport: transport, Timeout: timeout},
	}
}

// Available asks the inventory service how many units of a product are in
// stock. It returns ErrNotFound for unknown products.
func (c *Client) Available(ctx context.Context, id int) (int, error) {
	url := c.baseURL + "/inventory/" + strconv.Itoa(id)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("inventory: %w", err)
	}
	defer drainAndClose(resp.Body)

	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return 0, ErrNotFound
	default:
		return 0, fmt.Errorf("inventory: unexpected status %s", resp.Status)
	}
	var level Level
	if err := json.NewDecoder(resp.Body).Decode(&level); err != nil {
		return 0, fmt.Errorf("inventory: decoding response: %w", err)
	}
	return level.Available, nil
}

// drainAndClose reads what is left of a response body and closes it. The
// transport only returns a connection to the pool once the body has been
// read to EOF; closing it early throws the connection away.
func drainAndClose(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, maxDrainBytes))
	_ = body.Close()
}

// maxDrainBytes bounds drainAndClose: past this, re-dialling is cheaper
// than reading a body nobody wants.
const maxDrainBytes = 4 << 10

// CloseIdleConnections closes pooled connections; call it on shutdown.
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }
