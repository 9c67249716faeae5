// Package orders keeps orders in PostgreSQL. The schema and the seed data
// come from testdata/reset.sql, which perfgate runs before every round
// (service.reset), so the service itself never migrates: base and head
// starting at the same time must not race to create tables.
package orders

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// ErrNotFound is an order id that does not exist.
var ErrNotFound = errors.New("order not found")

// Order is one row of the orders table.
type Order struct {
	ID       int64     `json:"id"`
	Customer string    `json:"customer"`
	Item     string    `json:"item"`
	Qty      int       `json:"qty"`
	Created  time.Time `json:"created"`
}

// Store reads and writes orders through a database/sql pool.
type Store struct {
	db *sql.DB
}

// NewStore returns a Store on db.
func NewStore(db *sql.DB) *Store { return &Store{db: db} }

// Get returns the order with id, or ErrNotFound.
func (s *Store) Get(ctx context.Context, id int64) (Order, error) {
	o := Order{ID: id}
	err := s.db.QueryRowContext(ctx,
		`SELECT customer, item, qty, created FROM orders WHERE id = $1`, id,
	).Scan(&o.Customer, &o.Item, &o.Qty, &o.Created)
	if errors.Is(err, sql.ErrNoRows) {
		return Order{}, ErrNotFound
	}
	return o, err
}

// Create inserts an order and returns it with its id and creation time.
func (s *Store) Create(ctx context.Context, customer, item string, qty int) (Order, error) {
	o := Order{Customer: customer, Item: item, Qty: qty}
	err := s.db.QueryRowContext(ctx,
		`INSERT INTO orders (customer, item, qty) VALUES ($1, $2, $3) RETURNING id, created`,
		customer, item, qty,
	).Scan(&o.ID, &o.Created)
	return o, err
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }
