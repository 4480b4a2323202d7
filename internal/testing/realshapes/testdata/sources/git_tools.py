# mcp-server-git 0.6.2's git_log (no timestamps), git_status and git_diff,
# printed as its server.py prints them. The server reads the repository with
# GitPython; this script runs the same git commands GitPython runs (with
# LC_ALL=C, as GitPython does, and the last newline of the output removed,
# as GitPython's execute does) and prints the values with the same f-strings
# and the same reprs (GitPython's Actor repr is '<git.Actor "name <email>">').
#
#   python3 git_tools.py REPO log MAX_COUNT
#   python3 git_tools.py REPO status
#   python3 git_tools.py REPO diff TARGET
import datetime
import os
import subprocess
import sys

repo, tool = sys.argv[1], sys.argv[2]
env = dict(os.environ, LC_ALL="C", LANGUAGE="C")


def git(*args):
    out = subprocess.run(["git", "-C", repo, *args], env=env, check=True, capture_output=True).stdout.decode()
    return out[:-1] if out.endswith("\n") else out


class Actor:
    def __init__(self, name, email):
        self.name, self.email = name, email

    def __repr__(self):
        return '<git.Actor "%s <%s>">' % (self.name, self.email)


def commit(sha):
    raw = subprocess.run(["git", "-C", repo, "cat-file", "commit", sha], env=env, check=True, capture_output=True).stdout.decode()
    headers, message = raw.split("\n\n", 1)
    for line in headers.split("\n"):
        if line.startswith("author "):
            who, ts, tz = line[len("author "):].rsplit(" ", 2)
            name, email = who[:-1].split(" <", 1)
            sign = -1 if tz[0] == "-" else 1
            offset = datetime.timedelta(hours=int(tz[1:3]), minutes=int(tz[3:5])) * sign
            when = datetime.datetime.fromtimestamp(int(ts), datetime.timezone(offset))
    return sha, Actor(name, email), when, message


if tool == "log":
    log = []
    for sha in git("rev-list", "--max-count=" + sys.argv[3], "HEAD").split("\n"):
        hexsha, author, authored_datetime, message = commit(sha)
        log.append(
            f"Commit: {hexsha!r}\n"
            f"Author: {author!r}\n"
            f"Date: {authored_datetime}\n"
            f"Message: {message!r}\n"
        )
    sys.stdout.write("Commit history:\n" + "\n".join(log))
elif tool == "status":
    sys.stdout.write(f"Repository status:\n{git('status')}")
elif tool == "diff":
    target = sys.argv[3]
    diff = git("diff", "--unified=3", target)
    sys.stdout.write(f"Diff with {target}:\n{diff}")
