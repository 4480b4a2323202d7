-- The table behind the sqlite items (read_query, sqlite3 -csv/-separator/
-- -markdown/-json, Python csv). Written for the corpus, with the values
-- that real tables hold and that printers treat specially: both quote
-- characters, NULL, booleans stored as 0/1, floats with and without a
-- fraction, unicode, newlines, tabs, commas and pipes inside text.
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer TEXT NOT NULL,
  email TEXT,
  city TEXT,
  amount REAL,
  quantity INTEGER,
  paid BOOLEAN,
  note TEXT,
  created_at TEXT
);
INSERT INTO orders VALUES
 (1, 'Siobhán O''Brien', 'siobhan.obrien@example.ie', 'Dublin', 19.99, 2, 1, NULL, '2024-01-03 09:15:00'),
 (2, 'Dwayne "The Rock" Johnson', 'dj@example.com', 'Miami', 1250.0, 1, 0, 'VIP: call before shipping', '2024-01-04 17:02:11'),
 (3, 'Zoë Ångström', NULL, 'Malmö', 7.5, 12, 1, 'gift wrap, please', '2024-01-05 08:00:00'),
 (4, '田中 太郎', 'tanaka@example.jp', '東京', 3280.0, 3, 1, '配達は午前中に', '2024-01-05 23:59:59'),
 (5, 'Renée d''Arcy-Smith', 'renee@example.fr', 'Paris', 0.1, 1, 0, 'said "it''s fine" on the phone', '2024-01-06 12:30:45'),
 (6, 'José Núñez', 'jose@example.es', 'Sevilla', 42.0, 6, 1, 'line one
line two', '2024-01-07 10:10:10'),
 (7, 'Anna Kowalska', 'anna.k@example.pl', 'Kraków', 99.95, 1, NULL, NULL, '2024-01-08 14:20:00'),
 (8, 'Мария Иванова', 'maria@example.ru', 'Санкт-Петербург', 15.333, 4, 1, 'tab	inside', '2024-01-09 07:45:00'),
 (9, 'Li Wei', 'li.wei@example.cn', 'Shanghai', 2e-05, 1000, 1, 'unit price in BTC', '2024-01-10 18:00:00'),
 (10, 'Ngozi Okafor', 'ngozi@example.ng', 'Lagos', -15.0, 1, 0, 'refund | partial', '2024-01-11 11:11:11'),
 (11, 'Mr. Backslash \ Jones', 'bs@example.com', 'C:\Temp', 8.25, 2, 1, 'path C:\new\table', '2024-01-12 09:00:00'),
 (12, 'Åsa Öberg', 'asa@example.se', 'Göteborg', 123456789.125, 1, 1, '', '2024-01-13 16:40:00'),
 (13, 'Émile Zola', 'emile@example.fr', 'Aix-en-Provence', 64.0, 3, 0, 'J''accuse…', '2024-01-14 20:20:20'),
 (14, 'O''Neil & Sons, Ltd.', 'orders@oneil.example.co.uk', 'Belfast', 540.5, 10, 1, 'invoice to "Accounts"', '2024-01-15 13:00:00'),
 (15, 'Priya Raman', 'priya@example.in', 'Chennai', 1e21, 1, 1, 'ridiculous amount: test order', '2024-01-16 06:30:00'),
 (16, 'Hans Müller', 'hans@example.de', 'München', 33.33, 3, 0, 'Straße 5, 2. OG', '2024-01-17 15:15:15'),
 (17, 'Fatima Zahra', 'fatima@example.ma', 'الرباط', 250.0, 2, 1, 'مرحبا', '2024-01-18 19:45:00'),
 (18, 'Emoji Fan 🎉', 'party@example.com', 'Austin', 4.99, 5, 1, 'thanks 👍', '2024-01-19 21:00:00'),
 (19, 'Null Island', NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (20, 'Chloé O''Connor-"Quinn"', 'chloe@example.ie', 'Cork', 18.0, 1, 0, 'both '' and " quotes', '2024-01-21 10:00:00'),
 (21, 'Kwame Mensah', 'kwame@example.gh', 'Accra', 77.7, 7, 1, 'deliver to gate
ask for "Kofi"', '2024-01-22 08:08:08'),
 (22, 'Sakura Yamamoto', 'sakura@example.jp', '大阪', 1500.0, 2, 0, NULL, '2024-01-23 12:00:00'),
 (23, 'Lars Ødegård', 'lars@example.no', 'Tromsø', 0.0, 1, 1, 'free sample', '2024-01-24 09:30:00'),
 (24, 'Ana María de la Cruz', 'ana@example.mx', 'Ciudad de México', 89.9, 1, 1, '  leading and trailing spaces  ', '2024-01-25 17:17:17');
