# Prints the rows of a query on a SQLite database as pandas'
# DataFrame.to_markdown() prints them (tabulate's "pipe" format, the index
# as the first column), as a Python server returning df.to_markdown() does:
# python3 to_markdown.py DB QUERY (needs pandas and tabulate).
import sqlite3
import sys

import pandas as pd

con = sqlite3.connect(sys.argv[1])
sys.stdout.write(pd.read_sql_query(sys.argv[2], con).to_markdown())
