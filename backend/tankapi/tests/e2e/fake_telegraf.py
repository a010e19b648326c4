"""A stand-in for the telegraf binary, which cannot be installed here (tank-protocol.md §8/§9).

The tank's monitoring agent runs `telegraf -config agent.cfg` and reads the JSON lines telegraf writes to the
`[[outputs.file]]` path of that config. This script finds that path and appends, once a second, telegraf-style
`json` lines for cpu, mem, system, kernel and net, so the real agent, consolidator, collector and uploader of the
tank produce real monitoring pushes. The test prepends a shebang with the tank's Python when it installs it.
"""

import json
import re
import sys
import time

config_path = sys.argv[sys.argv.index("-config") + 1]
with open(config_path) as config:
    found = re.search(r"files\s*=\s*\['([^']+)'\]", config.read())
if found is None:
    sys.exit("no [[outputs.file]] files = ['...'] in " + config_path)
output_path = found.group(1)

counters = {"context_switches": 10_000, "interrupts": 5_000, "bytes_recv": 10**9, "bytes_sent": 10**9}
tick = 0
while True:
    ts = int(time.time())
    tick += 1
    for name in counters:
        counters[name] += 1_000 + 37 * tick  # growing counters: the agent turns them into per-second deltas
    lines = [
        {
            "name": "cpu",
            "tags": {"cpu": "cpu-total", "host": "sut"},
            "timestamp": ts,
            "fields": {"usage_user": 10.0 + tick % 7, "usage_system": 2.5, "usage_idle": 80.0 - tick % 7},
        },
        {
            "name": "mem",
            "tags": {"host": "sut"},
            "timestamp": ts,
            "fields": {
                "used": 2_000_000_000 + tick * 4096,
                "free": 6_000_000_000,
                "buffered": 10**8,
                "cached": 9 * 10**8,
            },
        },
        {
            "name": "system",
            "tags": {"host": "sut"},
            "timestamp": ts,
            "fields": {"load1": 0.5, "load5": 0.4, "load15": 0.3},
        },
        {
            "name": "kernel",
            "tags": {"host": "sut"},
            "timestamp": ts,
            "fields": {"context_switches": counters["context_switches"], "interrupts": counters["interrupts"]},
        },
        {
            "name": "net",
            "tags": {"host": "sut", "interface": "eth0"},
            "timestamp": ts,
            "fields": {"bytes_recv": counters["bytes_recv"], "bytes_sent": counters["bytes_sent"]},
        },
    ]
    with open(output_path, "a") as out:
        for line in lines:
            out.write(json.dumps(line) + "\n")
    time.sleep(1)
