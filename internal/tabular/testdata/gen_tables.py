# Prints orders.db (made by gen.py) as pandas' to_markdown and tabulate's
# pipe format: /usr/bin/python3 gen_tables.py (python3-pandas,
# python3-tabulate). Rows whose text holds a line break or a tab, which
# these printers cannot delimit, are left out.
import sqlite3
import pandas as pd
from tabulate import tabulate
con = sqlite3.connect('orders.db')
query = "select id, customer, note, paid, total from orders where instr(coalesce(customer, '') || coalesce(note, ''), char(9)) = 0 and instr(coalesce(customer, '') || coalesce(note, ''), char(10)) = 0"
df = pd.read_sql_query(query, con)
open('pandas_markdown.md', 'w').write(df.to_markdown())
rows = con.execute(query).fetchall()
open('tabulate_pipe.md', 'w').write(tabulate(rows, headers=['id', 'customer', 'note', 'paid', 'total'], tablefmt='pipe') + '\n')
