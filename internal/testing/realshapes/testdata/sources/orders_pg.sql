-- The table of orders.sql in PostgreSQL, for psql's items: its rows are
-- loaded from sqlite3 -csv (an empty field is NULL, 1 and 0 are booleans).
CREATE TABLE orders (
  id integer PRIMARY KEY,
  customer text NOT NULL,
  email text,
  city text,
  amount double precision,
  quantity integer,
  paid boolean,
  note text,
  created_at timestamp
);
