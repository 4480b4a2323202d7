# Generates the samples of this folder with real Python printing and the
# sqlite3 shell: python3 gen.py (then the sqlite3 commands of gen.sh).
import sqlite3, csv, io
con = sqlite3.connect(':memory:')
con.row_factory = sqlite3.Row
con.execute("create table orders(id integer primary key, customer text, note text, paid integer, total real, big integer)")
awk = ["O'Brien", 'say "hi"', "both ' and \"", "back\\slash", "new\nline", "tab\there", "naïve café", "emoji 🎉", "ctl \x01\x1f\x7f", "nbsp\xa0x", "soft\xadhyphen", "zero\u200bwidth", "", " lead", "trail ", "日本語", "\u2028sep", "c1 \x85\x9f"]
floats = [1.0, 1e-05, 1e+16, 0.1, -0.5, 19.99, 123456.789, 1e100, 2.5e-300, -0.0]
rows = []
for i in range(1, 301):
    rows.append((i, awk[i % len(awk)] if i % 3 else f"customer {i}", None if i % 4 == 0 else awk[(i*7) % len(awk)], i % 2, floats[i % len(floats)] if i % 5 else -i, (-1)**i * 10**(i % 19)))
con.executemany("insert into orders values (?,?,?,?,?,?)", rows)
cur = con.execute("select id, customer, note, paid, total, big from orders")
results = [dict(r) for r in cur.fetchall()]
for r in results:
    r['paid'] = bool(r['paid'])
results[7]['huge'] = 2**100
open('sqlite_read_query.txt', 'w').write(str(results))
open('tuples.txt', 'w').write(str([tuple(r.values()) for r in results[:50]]) + "\n")
open('tuple_of_tuples.txt', 'w').write(str(tuple(tuple(r.values()) for r in results[:50])))
open('single_tuple_rows.txt', 'w').write(str([(r['id'],) for r in results[:20]]))
open('lists_nested.txt', 'w').write(str([{'name': f'n{i}', 'tags': ['a', "b'c"], 'meta': {'k': i, 'v': None}} for i in range(30)]))
buf = io.StringIO(newline='')
w = csv.writer(buf)
w.writerow(['id', 'customer', 'note', 'paid', 'total'])
for r in results:
    w.writerow([r['id'], r['customer'], r['note'], r['paid'], r['total']])
open('python_csv.csv', 'w', newline='').write(buf.getvalue())
buf = io.StringIO(newline='')
w = csv.writer(buf, dialect='excel-tab')
w.writerow(['id', 'customer', 'total'])
for r in results:
    w.writerow([r['id'], r['customer'], r['total']])
open('python_tsv.tsv', 'w', newline='').write(buf.getvalue())
buf = io.StringIO(newline='')
w = csv.writer(buf, quoting=csv.QUOTE_ALL)
w.writerow(['id', 'customer'])
for r in results[:40]:
    w.writerow([r['id'], r['customer']])
open('python_csv_quote_all.csv', 'w', newline='').write(buf.getvalue())
con2 = sqlite3.connect('orders.db')
con2.execute("create table orders(id integer primary key, customer text, note text, paid integer, total real)")
con2.executemany("insert into orders values (?,?,?,?,?)", [r[:5] for r in rows])
con2.commit()
