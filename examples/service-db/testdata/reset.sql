-- The state every perfgate round starts from (service.reset runs this
-- before base and head start): the orders table, emptied, with 1,000
-- seeded orders for GET /orders/{id} to find. POST /orders adds rows during
-- a round; the next round starts from the same 1,000 again.
CREATE TABLE IF NOT EXISTS orders (
    id       bigserial   PRIMARY KEY,
    customer text        NOT NULL,
    item     text        NOT NULL,
    qty      integer     NOT NULL CHECK (qty > 0),
    created  timestamptz NOT NULL DEFAULT now()
);
TRUNCATE orders RESTART IDENTITY;
INSERT INTO orders (customer, item, qty, created)
SELECT 'customer-' || (g % 97), 'item-' || (g % 31), 1 + g % 5,
       timestamptz '2025-01-01 00:00:00+00' + g * interval '1 minute'
FROM generate_series(1, 1000) AS g;
ANALYZE orders;
