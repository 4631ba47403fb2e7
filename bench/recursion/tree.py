#!/usr/bin/env python3
"""A WITH RECURSIVE view (every node's ancestors in a random tree) loaded in
one request, then changed one row at a time, on each `sluice` binary given,
one after the other: seconds to load, and the median and largest time of a
one-row change from its POST to its completion.

  bench/recursion/tree.py [--nodes N] [--changes C] [--port P] [--workers W] [--hosts H] SLUICE...
"""
import argparse, http.client, json, os, random, subprocess, time

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--nodes", type=int, default=20000)
ap.add_argument("--changes", type=int, default=20)
ap.add_argument("--port", type=int, default=18190)
ap.add_argument("--workers", type=int, default=2)
ap.add_argument("--hosts", type=int, default=1)
ap.add_argument("binaries", nargs="+")
args = ap.parse_args()

for binary in args.binaries:
    cmd = [binary, "run", os.path.join(here, "tree.sql"), "--port", str(args.port),
           "--workers", str(args.workers)]
    if args.hosts > 1:
        cmd += ["--hosts", str(args.hosts)]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    c = None
    for _ in range(200):
        try:
            c = http.client.HTTPConnection("127.0.0.1", args.port)
            c.request("GET", "/status")
            c.getresponse().read()
            break
        except OSError:
            c = None
            time.sleep(0.05)
    if c is None or p.poll() is not None:
        raise SystemExit(binary + ": the pipeline did not start")

    def ingest(lines):
        c.request("POST", "/ingress/tree", "\n".join(lines))
        token = json.loads(c.getresponse().read())["token"]
        while True:
            c.request("GET", "/completion_status?token=" + token)
            if json.loads(c.getresponse().read())["status"] == "complete":
                return
            time.sleep(0.0005)

    rng = random.Random(1)
    rows = ['{"insert": {"id": 0, "parent": null}}']
    rows += ['{"insert": {"id": %d, "parent": %d}}' % (i, rng.randrange(i))
             for i in range(1, args.nodes)]
    began = time.time()
    ingest(rows)
    load = time.time() - began
    times = []
    for k in range(args.changes):
        began = time.time()
        ingest(['{"insert": {"id": %d, "parent": %d}}' % (args.nodes + k, rng.randrange(args.nodes))])
        times.append(time.time() - began)
    times.sort()
    c.request("GET", "/query?sql=SELECT+pairs+FROM+n&format=json")
    pairs = json.loads(c.getresponse().read())["pairs"]
    c.request("GET", "/stats")
    everything = json.loads(c.getresponse().read())
    stats = everything["global"].get("recursive_queries")
    rss = [round(h.get("rss_bytes", 0) / 2**20) for h in everything.get("hosts", [])] or \
          [round(everything["global"].get("rss_bytes", 0) / 2**20)]
    print(json.dumps({"binary": binary, "workers": args.workers, "hosts": args.hosts,
                      "nodes": args.nodes, "pairs": pairs, "load_s": round(load, 3),
                      "change_median_ms": round(1000 * times[len(times) // 2], 2),
                      "change_max_ms": round(1000 * times[-1], 2), "rss_mb": rss,
                      "recursive_queries": stats}))
    p.terminate()
    p.wait()
