# mcp-server-sqlite's read_query, as its server.py runs it: the rows as
# dicts (row_factory sqlite3.Row), printed with str(), which is the text of
# the tool's one TextContent.
import sqlite3
import sys

conn = sqlite3.connect(sys.argv[1])
conn.row_factory = sqlite3.Row
cursor = conn.cursor()
cursor.execute(sys.argv[2])
results = [dict(row) for row in cursor.fetchall()]
sys.stdout.write(str(results))
