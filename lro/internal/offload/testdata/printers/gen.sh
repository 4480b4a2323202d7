# Generates the samples of this folder from value.json, with the printers
# MCP servers use (Go's own are run by the tests): node's JSON.stringify,
# python3's json, jq and the sqlite3 shell's -json mode.
set -e
node -e '
const fs = require("fs");
const v = JSON.parse(fs.readFileSync("value.json", "utf8"));
fs.writeFileSync("node_compact.json", JSON.stringify(v));
fs.writeFileSync("node_indent2.json", JSON.stringify(v, null, 2));
fs.writeFileSync("node_indent4.json", JSON.stringify(v, null, 4));
fs.writeFileSync("node_tab.json", JSON.stringify(v, null, "\t"));
fs.writeFileSync("node_orders_indent2.json", JSON.stringify(v.orders, null, 2));
'
python3 -c '
import json
v = json.load(open("value.json"))
def write(name, text, newline=None):
    with open(name, "w", encoding="utf-8", newline=newline) as f:
        f.write(text)
write("python_default.json", json.dumps(v))
write("python_indent2.json", json.dumps(v, indent=2))
write("python_indent0.json", json.dumps(v, indent=0))
write("python_tab.json", json.dumps(v, indent="\t"))
write("python_utf8.json", json.dumps(v, ensure_ascii=False, indent=2))
write("python_compact.json", json.dumps(v, separators=(",", ":")))
write("python_print.json", json.dumps(v) + "\n")
# A text file written where text mode ends lines with CRLF (Windows).
write("python_crlf.json", json.dumps(v, indent=2) + "\n", newline="\r\n")
'
jq . value.json > jq_default.json
jq --tab . value.json > jq_tab.json
jq --indent 4 . value.json > jq_indent4.json
jq -c . value.json > jq_compact.json
jq -c '.orders[]' value.json > orders.jsonl
rm -f orders.db
sqlite3 orders.db "create table orders(id integer, customer text, note text, paid integer, price real)"
jq -r '.orders[] | [.id, .customer, .note, (if .paid then 1 else 0 end), (.prices[0] // null)] | @json' value.json |
  python3 -c '
import json, sqlite3, sys
db = sqlite3.connect("orders.db")
db.executemany("insert into orders values (?, ?, ?, ?, ?)", (json.loads(l) for l in sys.stdin))
db.commit()
'
sqlite3 -json orders.db "select * from orders order by id" > sqlite_json.json
sqlite3 -json orders.db "select * from orders where id = 1" > sqlite_json_one.json
rm orders.db orders.jsonl
