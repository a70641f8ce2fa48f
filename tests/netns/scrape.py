#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
"""scrape.py: a small HTTP client for test_metrics.sh (no curl needed).

  scrape.py one HOST PORT METHOD PATH [HEADER_BYTES]
      one request; prints the status, then the body on stdout
  scrape.py load HOST PORT CLIENTS HZ SECONDS
      CLIENTS keep-alive connections, each scraping /metrics HZ times a
      second for SECONDS; prints "requests ok errors"
"""
import http.client
import signal
import sys
import threading
import time


def one(host, port, method, path, header_bytes=0):
    c = http.client.HTTPConnection(host, port, timeout=10)
    headers = {}
    if header_bytes:
        headers["X-Padding"] = "a" * header_bytes
    try:
        c.request(method, path, headers=headers)
        r = c.getresponse()
        body = r.read()
        print(r.status)
        sys.stdout.write(body.decode("utf-8", "replace"))
    except (OSError, http.client.HTTPException) as e:
        print("error %s" % e)
    c.close()


def client(host, port, hz, until, res, lock):
    period = 1.0 / hz
    c = None
    ok = err = 0
    nxt = time.monotonic()
    while time.monotonic() < until:
        try:
            if c is None:
                c = http.client.HTTPConnection(host, port, timeout=5)
            c.request("GET", "/metrics")
            r = c.getresponse()
            body = r.read()
            if r.status == 200 and body.startswith(b"# HELP"):
                ok += 1
            else:
                err += 1
        except (OSError, http.client.HTTPException):
            err += 1
            if c is not None:
                c.close()
            c = None
        nxt += period
        delay = nxt - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    if c is not None:
        c.close()
    with lock:
        res[0] += ok
        res[1] += err


def load(host, port, clients, hz, secs):
    res = [0, 0]
    lock = threading.Lock()
    until = time.monotonic() + secs
    ts = [threading.Thread(target=client,
                           args=(host, port, hz, until, res, lock))
          for _ in range(clients)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print("%d %d %d" % (res[0] + res[1], res[0], res[1]))


def main():
    # A reader that stops early (| head -n 1) is not an error.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    a = sys.argv[1:]
    if len(a) >= 5 and a[0] == "one":
        one(a[1], int(a[2]), a[3], a[4], int(a[5]) if len(a) > 5 else 0)
    elif len(a) == 6 and a[0] == "load":
        load(a[1], int(a[2]), int(a[3]), float(a[4]), float(a[5]))
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
