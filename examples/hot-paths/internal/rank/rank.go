// Package rank is a hot path of reflection-based JSON, maps and sorting:
// GET /rank?n=N&seed=S makes N scored items from the seed, round-trips
// them through encoding/json as a client's request body would arrive,
// groups them by category in a map, sorts every group and answers with
// the best of each as JSON.
package rank

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
)

// maxItems bounds n: a request cannot ask for unbounded work.
const maxItems = 1000

// Item is one scored entry of a ranking request.
type Item struct {
	ID       int      `json:"id"`
	Category string   `json:"category"`
	Score    float64  `json:"score"`
	Tags     []string `json:"tags"`
}

// Group is one category's share of the answer.
type Group struct {
	Category string  `json:"category"`
	Count    int     `json:"count"`
	Mean     float64 `json:"mean"`
	Best     []Item  `json:"best"`
}

var categories = []string{"books", "garden", "kitchen", "music", "outdoor", "toys", "tools", "video"}
var tagWords = []string{"new", "sale", "gift", "eco", "bulk", "import", "local", "premium", "refurb"}

// Handler serves GET /rank.
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /rank", serveRank)
	return mux
}

func serveRank(w http.ResponseWriter, r *http.Request) {
	n, err := intParam(r, "n", 100)
	if err != nil || n < 1 || n > maxItems {
		http.Error(w, fmt.Sprintf("n must be 1..%d", maxItems), http.StatusBadRequest)
		return
	}
	seed, err := intParam(r, "seed", 1)
	if err != nil {
		http.Error(w, "seed must be an integer", http.StatusBadRequest)
		return
	}
	top, err := intParam(r, "top", 3)
	if err != nil || top < 1 {
		http.Error(w, "top must be a positive integer", http.StatusBadRequest)
		return
	}
	// The items arrive as JSON, as a client would send them.
	body, err := json.Marshal(generate(n, uint64(seed)))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var items []Item
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&items); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(Rank(items, top))
}

// Rank groups items by category and returns, per category in name order,
// the count, the mean score and the top items by score (ties by tag count,
// then id).
func Rank(items []Item, top int) []Group {
	byCategory := map[string][]Item{}
	for _, it := range items {
		byCategory[it.Category] = append(byCategory[it.Category], it)
	}
	groups := make([]Group, 0, len(byCategory))
	for category, members := range byCategory {
		slices.SortFunc(members, func(a, b Item) int {
			if c := cmp.Compare(b.Score, a.Score); c != 0 {
				return c
			}
			if c := cmp.Compare(len(b.Tags), len(a.Tags)); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
		sum := 0.0
		for _, m := range members {
			sum += m.Score
		}
		groups = append(groups, Group{Category: category, Count: len(members), Mean: sum / float64(len(members)), Best: members[:min(top, len(members))]})
	}
	slices.SortFunc(groups, func(a, b Group) int { return cmp.Compare(a.Category, b.Category) })
	return groups
}

func generate(n int, seed uint64) []Item {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	items := make([]Item, n)
	for i := range items {
		tags := make([]string, rng.IntN(4))
		for j := range tags {
			tags[j] = tagWords[rng.IntN(len(tagWords))]
		}
		items[i] = Item{ID: i + 1, Category: categories[rng.IntN(len(categories))], Score: float64(rng.IntN(100000)) / 100, Tags: tags}
	}
	return items
}

func intParam(r *http.Request, name string, fallback int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return fallback, nil
	}
	return strconv.Atoi(v)
}
