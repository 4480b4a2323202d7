# The rows of a query written by Python's csv module with its default
# dialect (excel: CRLF line ends, minimal quoting), header row first.
import csv
import sqlite3
import sys

conn = sqlite3.connect(sys.argv[1])
cursor = conn.execute(sys.argv[2])
w = csv.writer(sys.stdout)
w.writerow([d[0] for d in cursor.description])
w.writerows(cursor.fetchall())
