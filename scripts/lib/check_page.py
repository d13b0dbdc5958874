"""The pages `rmq-rebalance watch` serves, read in a real headless Chromium (Debian's, unpacked by
scripts/lib/install-chromium.sh): what a person sees is checked in the DOM the browser built.

Two groups, each a snapshot file `watch --load` reads again every round. G_OK: a@2 and b@2 hold what
AVG gives them, nothing waits. G_BAD starts the same way and, after the second round, becomes: a@1
holds queues 0, 1 and 2, b@1 only 2 (AVG gives a@1 0 and 1, b@1 2 and 3), and 10 messages wait on
queue 3. Derived by hand from the rules in docs/watch.md: queue 2 is double held (and held by a@1,
whom AVG does not name: unexpected_holder too), queue 3 orphaned and, nobody committing it over a whole
window (3 rounds here) with messages waiting, STOP; so the list shows G_BAD first, STOP, with
stuck lag 10, and G_BAD's page shows both queues held against the strategy with their causes, and
the one owner change (queue 2 from b@1 to both; queue 3 has gone to nobody, which is no change
until someone takes it: a handoff through nobody is one change).

Usage: check_page.py CHROMIUM RMQ_REBALANCE [--screenshot PNG]
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path

PROPS = {"allocateMessageQueueStrategy": "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely@1"}


def snapshot(group, a, b, held_a, held_b, waiting_on_3):
    held = lambda ids: [  # noqa: E731
        {"queue": ["T", "broker-a", i], "dropped": False, "locked": False, "last_lock_ms": 0, "last_pull_ms": 0} for i in ids
    ]
    return {
        "group": group,
        "taken_at_ms": int(time.time() * 1000),
        "topics": {"T": [["T", "broker-a", i] for i in range(4)]},
        "brokers": [{"broker": "broker-a", "addr": "127.0.0.1:10911", "consumer_ids": [a, b]}],
        "connections": [{"client_id": c, "client_addr": f"10.0.0.{n}:1", "language": "JAVA", "version": 479} for n, c in enumerate([a, b])],
        "clients": [
            {"client_id": a, "running": {"properties": PROPS, "held": held(held_a)}},
            {"client_id": b, "running": {"properties": PROPS, "held": held(held_b)}},
        ],
        "offsets": [{"queue": ["T", "broker-a", i], "consumer_offset": 5, "broker_offset": 5 + (waiting_on_3 if i == 3 else 0)} for i in range(4)],
    }


class Dom(HTMLParser):
    """The rows of the page's tables: (tr classes, tr data attributes, {td class: text}, [td texts])."""

    def __init__(self, text):
        super().__init__()
        self.rows, self.items, self.row, self.cell, self.title = [], [], None, None, ""
        self.in_title = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr":
            self.row = (a.get("class", "").split(), {k: v for k, v in a.items() if k.startswith("data-")}, {}, [])
            self.rows.append(self.row)
        elif tag == "td" and self.row is not None:
            self.cell = [a.get("class", ""), ""]
        elif tag == "li":
            self.items.append(a.get("class", ""))
        self.in_title = tag == "title"

    def handle_endtag(self, tag):
        if tag == "td" and self.row is not None and self.cell is not None:
            for c in self.cell[0].split():
                self.row[2][c] = self.cell[1].strip()
            self.row[3].append(self.cell[1].strip())
            self.cell = None
        elif tag == "title":
            self.in_title = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data
        if self.in_title:
            self.title += data

    def of(self, cls):
        return [r for r in self.rows if cls in r[0]]


def dom(chromium, url):
    r = subprocess.run([chromium, "--dump-dom", url], capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or "<html" not in r.stdout:
        sys.exit(f"chromium could not load {url}: exit {r.returncode}\n{r.stderr[-2000:]}")
    return Dom(r.stdout)


def check(what, got, want):
    if got != want:
        sys.exit(f"the page: {what}: {got!r}, expected {want!r}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("chromium")
    p.add_argument("rmq_rebalance")
    p.add_argument("--screenshot", help="where to write a screenshot of G_BAD's page (default: a temporary file)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as d:
        good, bad = Path(d) / "good.json", Path(d) / "bad.json"
        good.write_text(json.dumps(snapshot("G_OK", "a@2", "b@2", [0, 1], [2, 3], 0)))
        bad.write_text(json.dumps(snapshot("G_BAD", "a@1", "b@1", [0, 1], [2, 3], 0)))
        cmd = [args.rmq_rebalance, "watch", "--load", str(good), "--load", str(bad), "--interval", "300ms", "--window", "3", "--listen", "127.0.0.1:0"]
        proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        try:
            base = "http://" + proc.stderr.readline().split("http://")[1].split("/")[0]
            while not proc.stderr.readline().startswith("round 2:"):
                pass
            bad.write_text(json.dumps(snapshot("G_BAD", "a@1", "b@1", [0, 1, 2], [2], 10)))
            # A window of 3 rounds holds only the new state from round 5 on: wait for round 6.
            while not proc.stderr.readline().startswith("round 6:"):
                pass
            time.sleep(0.1)
            index = dom(args.chromium, base + "/")
            check("the groups, worst first", [r[1]["data-group"] for r in index.of("group")], ["G_BAD", "G_OK"])
            check("the groups' statuses", [r[2]["status"] for r in index.of("group")], ["STOP", "OK"])
            check("G_BAD's stuck lag", index.of("group")[0][2]["stuck"], "10")
            page = dom(args.chromium, base + "/group/G_BAD")
            queues = {r[1]["data-queue"]: r for r in page.of("queue")}
            check("G_BAD's queues", sorted(queues), [f"T@broker-a:{i}" for i in range(4)])
            rows = [(q[-1], "mismatch" in r[0], r[2]["holders"], r[2]["expected"], r[2]["status"], r[2]["cause"]) for q, r in sorted(queues.items())]
            check(
                "G_BAD's rows (queue, highlighted, held by, expected, status, cause)",
                rows,
                [
                    ("0", False, "a@1", "a@1", "OK", ""),
                    ("1", False, "a@1", "a@1", "OK", ""),
                    ("2", True, "a@1, b@1", "b@1", "OK", "double_held"),
                    ("3", True, "-", "b@1", "STOP", "orphaned"),
                ],
            )
            check(
                "G_BAD's findings",
                sorted(c for c in page.items if "finding" in c),
                ["finding kind-double_held", "finding kind-orphaned", "finding kind-unexpected_holder"],
            )
            changes = sorted((r[3][1], r[3][2], r[3][3]) for r in page.of("change"))
            check("G_BAD's owner changes (queue, from, to)", changes, [("T@broker-a:2", "b@1", "a@1, b@1")])
            shot = Path(args.screenshot or Path(d) / "page.png").resolve()
            r = subprocess.run(
                [args.chromium, f"--screenshot={shot}", "--window-size=1100,620", base + "/group/G_BAD"], capture_output=True, text=True, timeout=120
            )
            if r.returncode != 0 or not shot.exists() or shot.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
                sys.exit(f"chromium took no screenshot: exit {r.returncode}\n{r.stderr[-2000:]}")
            print(
                f"pages in headless Chromium: the list worst first, G_BAD's 4 queues, 3 findings and its owner change as derived; screenshot {shot.stat().st_size} bytes"
            )
        finally:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
