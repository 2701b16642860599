#!/usr/bin/env python3
"""Write browsing history straight into a Chromium profile's `History` SQLite database.

Usage: seed_history.py PATH/TO/Default/History ENTRIES.json

The browser must be closed. ENTRIES.json is a JSON array of
  {"url": str, "title": str, "visits": [ms since Unix epoch, ...], "typed": bool (optional)}
Each entry becomes one row in `urls` and one row per visit in `visits`, all in one transaction
(20,000 entries take well under a second).

Schema facts that matter (checked against Chromium 156's History DB):
- times are microseconds since 1601-01-01 UTC ("WebKit/Windows epoch");
- `urls.last_visit_time`, `visit_count`, `typed_count`, `hidden` are NOT NULL;
- `visits.transition` must carry the CHAIN_START|CHAIN_END qualifiers: the history backend only
  returns "visible" visits, which requires CHAIN_END and a non-subframe core type;
- `visits` has several NOT NULL columns with defaults (visit_duration, is_known_to_sync, ...); we
  let SQLite fill those with their defaults and fill the rest explicitly.
"""
import json
import sqlite3
import sys

# Microseconds between 1601-01-01 and 1970-01-01.
EPOCH_DELTA_US = 11_644_473_600_000_000

# ui::PageTransition: core types and qualifiers.
PAGE_TRANSITION_LINK = 0
PAGE_TRANSITION_TYPED = 1
PAGE_TRANSITION_CHAIN_START = 0x10000000
PAGE_TRANSITION_CHAIN_END = 0x20000000


def to_chrome_time(ms):
    return int(round(ms * 1000)) + EPOCH_DELTA_US


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    db_path, entries_path = sys.argv[1], sys.argv[2]
    with open(entries_path, encoding="utf-8") as f:
        entries = json.load(f)

    con = sqlite3.connect(db_path, isolation_level=None)
    try:
        cols = {row[1] for row in con.execute("PRAGMA table_info(urls)")}
        missing = {"url", "title", "visit_count", "typed_count", "last_visit_time", "hidden"} - cols
        if missing:
            sys.exit(f"seed_history: unexpected `urls` schema in {db_path}: missing {sorted(missing)}")
        vcols = {row[1] for row in con.execute("PRAGMA table_info(visits)")}
        if not {"url", "visit_time", "transition", "from_visit"} <= vcols:
            sys.exit(f"seed_history: unexpected `visits` schema in {db_path}: {sorted(vcols)}")

        con.execute("BEGIN")
        url_sql = (
            "INSERT INTO urls (url, title, visit_count, typed_count, last_visit_time, hidden) "
            "VALUES (?, ?, ?, ?, ?, 0)"
        )
        visit_sql = (
            "INSERT INTO visits (url, visit_time, from_visit, transition, segment_id, visit_duration) "
            "VALUES (?, ?, 0, ?, 0, 0)"
        )
        visit_rows = []
        for i, e in enumerate(entries):
            url, title, visits = e.get("url"), e.get("title", ""), e.get("visits") or []
            if not isinstance(url, str) or not url:
                sys.exit(f"seed_history: entry {i} has no url: {e!r}")
            if not visits:
                sys.exit(f"seed_history: entry {i} ({url}) has no visits")
            times = sorted(to_chrome_time(ms) for ms in visits)
            typed = bool(e.get("typed"))
            core = PAGE_TRANSITION_TYPED if typed else PAGE_TRANSITION_LINK
            transition = core | PAGE_TRANSITION_CHAIN_START | PAGE_TRANSITION_CHAIN_END
            cur = con.execute(
                url_sql, (url, title or "", len(times), len(times) if typed else 0, times[-1])
            )
            url_id = cur.lastrowid
            visit_rows.extend((url_id, t, transition) for t in times)
        con.executemany(visit_sql, visit_rows)
        con.execute("COMMIT")
        print(f"seeded {len(entries)} urls, {len(visit_rows)} visits into {db_path}")
    except BaseException:
        if con.in_transaction:
            con.execute("ROLLBACK")
        raise
    finally:
        con.close()


if __name__ == "__main__":
    main()
