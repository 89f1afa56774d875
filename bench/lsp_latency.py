#!/usr/bin/env python3
"""Latency of `olmlint server` after a small edit: the time from a didChange to the
publishDiagnostics of that version, over N edits of one file of a catalog (a comment line
added, then removed, and so on: the catalog stays the same, every edit is re-judged whole).
Prints the first (whole) lint's time, then the median and p95 of the edits, in ms, and the
server's peak resident memory so far (Linux: VmHWM).

    bench/lsp_latency.py [--olmlint target/release/olmlint] [--edits 20]
                         [--resolution-checks auto|deferred|everyEdit] CATALOG FILE...

CATALOG is the catalog directory (the server is started there, without workspace folders, so
each FILE's catalog is its root as `olmlint lint --only-files` decides it); each FILE is a
YAML file of it (relative to CATALOG), measured in turn. Nothing is written: the edits stay in
the server's buffers. The server's debounce (the quiet time it waits after an edit) is part of
what is measured, as an editor sees it. The edits come 50 ms apart, faster than the pause
after which a large catalog's deferred full run starts (see the book's editors page), so with
`auto` a catalog whose full check is slow is measured with quick runs; `everyEdit` measures
full runs on every edit.
"""

import argparse
import json
import os
import statistics
import subprocess
import time


class Server:
    def __init__(self, olmlint, cwd):
        self.p = subprocess.Popen([olmlint, "server"], cwd=cwd, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)
        self.next_id = 1

    def send(self, message):
        body = json.dumps(message).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def recv(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("the server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(self.p.stdout.read(length))

    def request(self, method, params):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            m = self.recv()
            if m.get("id") == rid and "method" not in m:
                return m

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def published(self, uri, version):
        while True:
            m = self.recv()
            p = m.get("params") or {}
            if m.get("method") == "textDocument/publishDiagnostics" and p.get("uri") == uri \
                    and p.get("version") == version:
                return p


def uri_of(path):
    return "file://" + os.path.realpath(path)


def measure(server, path, edits):
    uri = uri_of(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = time.perf_counter()
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "yaml", "version": 1, "text": text}})
    first = server.published(uri, 1)
    whole = (time.perf_counter() - start) * 1000
    probe = "# olmlint latency probe\n"
    times = []
    for i in range(edits):
        version = i + 2
        if i % 2 == 0:
            change = {"range": {"start": {"line": 0, "character": 0},
                                "end": {"line": 0, "character": 0}}, "text": probe}
        else:
            change = {"range": {"start": {"line": 0, "character": 0},
                                "end": {"line": 1, "character": 0}}, "text": ""}
        start = time.perf_counter()
        server.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]})
        server.published(uri, version)
        times.append((time.perf_counter() - start) * 1000)
        # An editor's edits are apart; let the server idle between them.
        time.sleep(0.05)
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    return whole, len(first["diagnostics"]), times


def peak_mb(pid):
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return f"{int(line.split()[1]) // 1024}"
    except OSError:
        pass
    return "n/a"


def p95(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--olmlint", default="target/release/olmlint")
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--resolution-checks", default="auto",
                    choices=["auto", "deferred", "everyEdit"])
    ap.add_argument("catalog")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    olmlint = os.path.abspath(args.olmlint)
    server = Server(olmlint, args.catalog)
    server.request("initialize", {
        "processId": None, "rootUri": None, "capabilities": {},
        "initializationOptions": {"resolutionChecks": args.resolution_checks}})
    server.notify("initialized", {})
    print(f"{'file':<45} {'size':>9} {'open ms':>8} {'median ms':>10} {'p95 ms':>7} {'max ms':>7}"
          f" {'peak MB':>8}")
    for rel in args.files:
        path = os.path.join(args.catalog, rel)
        whole, findings, times = measure(server, path, args.edits)
        print(f"{rel:<45} {os.path.getsize(path):>9} {whole:>8.1f} "
              f"{statistics.median(times):>10.1f} {p95(times):>7.1f} {max(times):>7.1f}"
              f" {peak_mb(server.p.pid):>8}")
    server.request("shutdown", None)
    server.notify("exit", None)
    # Read what the server still writes (the withdrawn findings of closed files) until it
    # ends: a client that stops reading would block the server's last writes, and so its exit.
    server.p.stdout.read()
    server.p.wait()


if __name__ == "__main__":
    main()
