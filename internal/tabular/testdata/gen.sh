# Generates the samples of this folder: python3 gen.py, then the sqlite3
# shell, then pandas 1.5.3 and tabulate 0.8.9 (Debian's python3-pandas and
# python3-tabulate, under /usr/bin/python3).
set -e
python3 gen.py
sqlite3 -csv -header orders.db "select * from orders" > sqlite_csv.csv
sqlite3 -header -separator "$(printf '\t')" orders.db "select id, total, paid from orders" > sqlite_tsv.tsv
sqlite3 orders.db ".mode markdown" "select id, total, paid from orders" > sqlite_markdown.md
sqlite3 orders.db ".mode markdown" "select id, customer, total from orders where id < 100 and customer not glob '*[^ -~]*' and customer not like '%|%' and customer not like ' %' and customer not like '% '" > sqlite_markdown_text.md
sqlite3 -tabs -header orders.db "select id, customer, note, total from orders where instr(coalesce(customer, '') || coalesce(note, ''), char(9)) = 0 and instr(coalesce(customer, '') || coalesce(note, ''), char(10)) = 0" > sqlite_tabs.tsv
/usr/bin/python3 gen_tables.py
rm orders.db
