// Package route is a hot path in two real dependencies: go-chi's radix
// router and middleware, and gjson's scanning of a JSON document (a
// customer store of 300 users, made from a fixed seed at start-up) for
// every answer.
package route

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/tidwall/gjson"
)

// Users is how many users the store holds.
const Users = 300

// Handler serves the store's routes over a document made from seed.
func Handler(seed uint64) http.Handler {
	doc := Document(Users, seed)
	r := chi.NewRouter()
	r.Use(middleware.RequestID, middleware.Recoverer)
	r.Route("/users/{id}", func(r chi.Router) {
		r.Get("/", func(w http.ResponseWriter, r *http.Request) { user(w, r, doc, "{name,email,tier}") })
		r.Get("/orders", func(w http.ResponseWriter, r *http.Request) { orderTotal(w, r, doc) })
		r.Get("/tags", func(w http.ResponseWriter, r *http.Request) { user(w, r, doc, "tags") })
	})
	r.Get("/tiers/{tier}/spend", func(w http.ResponseWriter, r *http.Request) { tierSpend(w, r, doc) })
	// Routes the load does not call, so that the router's tree is the
	// size of a real service's.
	for _, resource := range []string{"carts", "invoices", "returns", "coupons", "reviews", "shipments"} {
		r.Get("/"+resource, notImplemented)
		r.Get("/"+resource+"/{id}", notImplemented)
		r.Post("/"+resource, notImplemented)
	}
	return r
}

// Document is the store: n users, each with a name, an email, a tier,
// tags and 3 to 8 orders, as one JSON document.
func Document(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	tiers := []string{"free", "plus", "pro", "team"}
	var b strings.Builder
	b.WriteString(`{"users":[`)
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"user%d","email":"user%d@example.com","tier":%q,"tags":["t%d","t%d"],"orders":[`,
			i, i, i, tiers[rng.IntN(len(tiers))], rng.IntN(20), rng.IntN(20))
		for o := range 3 + rng.IntN(6) {
			if o > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%d,"total":%d.%02d,"items":%d}`, i*100+o, rng.IntN(500), rng.IntN(100), 1+rng.IntN(9))
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`]}`)
	return b.String()
}

func userID(w http.ResponseWriter, r *http.Request) (int, bool) {
	id, err := strconv.Atoi(chi.URLParam(r, "id"))
	if err != nil || id < 1 || id > Users {
		http.Error(w, fmt.Sprintf("id must be 1..%d", Users), http.StatusBadRequest)
		return 0, false
	}
	return id, true
}

func user(w http.ResponseWriter, r *http.Request, doc, fields string) {
	id, ok := userID(w, r)
	if !ok {
		return
	}
	res := gjson.Get(doc, fmt.Sprintf("users.#(id==%d).%s", id, fields))
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(res.Raw))
}

func orderTotal(w http.ResponseWriter, r *http.Request, doc string) {
	id, ok := userID(w, r)
	if !ok {
		return
	}
	total, count := 0.0, 0
	for _, t := range gjson.Get(doc, fmt.Sprintf("users.#(id==%d).orders.#.total", id)).Array() {
		total += t.Float()
		count++
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":%d,"orders":%d,"total":%.2f}`, id, count, total)
}

func tierSpend(w http.ResponseWriter, r *http.Request, doc string) {
	tier := chi.URLParam(r, "tier")
	spend, users := 0.0, 0
	gjson.Get(doc, "users").ForEach(func(_, u gjson.Result) bool {
		if u.Get("tier").String() != tier {
			return true
		}
		users++
		for _, t := range u.Get("orders.#.total").Array() {
			spend += t.Float()
		}
		return true
	})
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"tier":%q,"users":%d,"spend":%.2f}`, tier, users, spend)
}

func notImplemented(w http.ResponseWriter, _ *http.Request) {
	http.Error(w, "not implemented", http.StatusNotImplemented)
}
