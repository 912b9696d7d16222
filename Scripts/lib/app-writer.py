"""An app writing to its store beside a migration, as an app extension or a second process
sharing the store would: every few milliseconds it opens the store, asks for WAL mode, inserts
one Person (its key the entity's Z_MAX + 1, Z_PRIMARYKEY updated, every column the table has
filled), changes another row, commits and closes. It knows nothing of Molt's lock.

    python3 app-writer.py STORE LOG STOP [--interval 0.005] [--entity Person] [--prefix app-] [--keep-mode]

Each insert whose COMMIT returned is appended to LOG (one name a line, flushed) before the
next begins: every name in LOG must be in the store at the path when the migration ends. A
failed attempt (the store locked, a renamed file refusing writes) is not committed and is not
logged; the writer then opens the store again. With --keep-mode it leaves the journal mode as
it finds it (an app on a rollback journal). It stops when the file STOP exists, and prints one
line: commits, refusals by kind.
"""
import argparse
import os
import sqlite3
import sys
import time


def columns(db, table):
    return {row[1]: (row[2] or "").upper() for row in db.execute('PRAGMA table_info("%s")' % table)}


def value_for(column, kind, name):
    if column == "ZNAME":
        return name
    if column == "ZEMAIL":
        return name + "@writer.example"
    if "INT" in kind:
        return 1
    if "FLOAT" in kind or "TIMESTAMP" in kind or "REAL" in kind:
        return 0.0
    if "BLOB" in kind:
        return None
    return None


def write_once(store, entity, name, timeout, wal):
    db = sqlite3.connect(store, timeout=timeout, isolation_level=None)
    try:
        if wal:
            db.execute("PRAGMA journal_mode = WAL")
        db.execute("BEGIN IMMEDIATE")
        row = db.execute("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = ?", (entity,)).fetchone()
        if row is None:
            raise sqlite3.DatabaseError("no entity %s" % entity)
        number, maximum = row
        table = "Z" + entity.upper()
        fields = columns(db, table)
        key = maximum + 1
        values = {"Z_PK": key, "Z_ENT": number, "Z_OPT": 1}
        for column, kind in fields.items():
            if column not in values:
                values[column] = value_for(column, kind, name)
        names = ", ".join('"%s"' % c for c in values)
        marks = ", ".join("?" for _ in values)
        db.execute('INSERT INTO "%s" (%s) VALUES (%s)' % (table, names, marks), list(values.values()))
        db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", (key, number))
        db.execute('UPDATE "%s" SET Z_OPT = Z_OPT + 1 WHERE Z_PK = (SELECT MIN(Z_PK) FROM "%s")' % (table, table))
        db.execute("COMMIT")
    finally:
        db.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("store")
    parser.add_argument("log")
    parser.add_argument("stop")
    parser.add_argument("--interval", type=float, default=0.005)
    parser.add_argument("--entity", default="Person")
    parser.add_argument("--prefix", default="app-")
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--keep-mode", action="store_true")
    arguments = parser.parse_args()
    commits = 0
    refusals = {}
    attempt = 0
    with open(arguments.log, "a") as log:
        while not os.path.exists(arguments.stop):
            attempt += 1
            name = "%s%d" % (arguments.prefix, attempt)
            try:
                write_once(arguments.store, arguments.entity, name, arguments.timeout, not arguments.keep_mode)
            except sqlite3.Error as error:
                kind = str(error).split(":")[0]
                refusals[kind] = refusals.get(kind, 0) + 1
            else:
                log.write(name + "\n")
                log.flush()
                commits += 1
            time.sleep(arguments.interval)
    summary = ", ".join("%d %s" % (count, kind) for kind, count in sorted(refusals.items())) or "none"
    print("app-writer: %d commits; refused: %s" % (commits, summary))


if __name__ == "__main__":
    sys.exit(main())
