# Generates the samples of this folder: python3 gen.py, then the sqlite3 shell.
set -e
python3 gen.py
sqlite3 -csv -header orders.db "select * from orders" > sqlite_csv.csv
sqlite3 -header -separator "$(printf '\t')" orders.db "select id, total, paid from orders" > sqlite_tsv.tsv
sqlite3 orders.db ".mode markdown" "select id, total, paid from orders" > sqlite_markdown.md
sqlite3 orders.db ".mode markdown" "select id, customer, total from orders where id < 100 and customer not glob '*[^ -~]*' and customer not like '%|%' and customer not like ' %' and customer not like '% '" > sqlite_markdown_text.md
rm orders.db
