#!/usr/bin/env python3
"""Soak test of the release daemon (`make soak`; not part of `make test`).

SOAK_TAPS (default 100,000) tag.arrived events go into `tagrouter run --events-from -`
(JSON lines on stdin, paced at SOAK_RATE events/s, default 200), one route with four
actions, each spooled: MQTT QoS 1 to a mosquitto broker (a persistent subscriber,
mosquitto_sub -c, counts what arrives), a webhook to a local HTTP server, a shell
command appending $TAG_EVENT_ID to a file, and an exec plugin doing the same.

Faults, at fixed shares of the taps sent: the broker restarted three times (SIGTERM,
down 2 s, started again with its store), the webhook answering 500 for a tenth of the
run, and one SIGKILL of the daemon, which is started again on the same state_dir (its
spool carries over). Events the killed daemon had read but not yet written ahead for
every action are sent again to the new one, as the source would still have them.

At the end every event is accounted for per action: delivered (distinct event ids at
the receiver), failed with a logged reason (a log line naming the event), or silently
lost — which must be zero. Resident memory and open fds are sampled twice a second;
after warm-up (the first quarter of each daemon's life) the table gives them at its
start and end, and memory's slope.
The figures are printed as a Markdown table; the exit status is 1 if anything was lost.

Then the flood phase (issue 18): a second daemon with a local reader (`tagrouter simulate`,
a PN532 on a pseudo-terminal) and an `mqtt` input, one route relaying every event with an
`mqtt` action (spooled). SOAK_LATENCY_TAPS (default 40) tags are placed on the reader one
after another, first on a quiet input, then while SOAK_FLOOD (default 100,000) events
published at once by mosquitto_pub flood the input. A tap's latency runs from the placing
of its tag to the daemon's line saying it was routed (its log time), and to its relayed
message at a subscriber: p50/p99/max with and without the flood, and what the input
sustained (events routed per second, CPU per event).
SOAK_PHASES picks the phases (default "soak,flood"); SOAK_TAGROUTER another binary.
"""
import calendar
import getpass
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
TAGROUTER = os.environ.get("SOAK_TAGROUTER", os.path.join(ROOT, ".build/release/tagrouter"))
WORK = os.path.join(ROOT, ".build/soak")
TAPS = int(os.environ.get("SOAK_TAPS", "100000"))
RATE = float(os.environ.get("SOAK_RATE", "200"))
PHASES = os.environ.get("SOAK_PHASES", "soak,flood").split(",")
FLOOD = int(os.environ.get("SOAK_FLOOD", "100000"))
LATENCY_TAPS = int(os.environ.get("SOAK_LATENCY_TAPS", "40"))
ACTIONS = {"mqtt": "soak.0.mqtt", "webhook": "soak.1.webhook", "shell": "soak.2.shell", "exec": "soak.3.exec"}
# When each fault happens, as a share of the taps sent.
BROKER_RESTARTS = (0.15, 0.45, 0.75)
WEBHOOK_500 = (0.30, 0.40)
DAEMON_KILL = 0.55
BROKER_DOWN_SECONDS = 2.0
# What the daemon logs when it gives an event up (ActionAttention): "<action>: <what>: <reason>",
# one line per event at debug level (a flood shows once at its own level, the repeats at debug).
FAILURES = ("delivery failed; event not delivered", "event dropped")
# How long the end may take without a single new delivery before the rest counts as not delivered.
QUIET_LIMIT_SECONDS = 120


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(what, condition, seconds=30):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            sys.exit(f"soak: timed out waiting for {what}")
        time.sleep(0.05)


def read_ids(path):
    """The event ids in a file of one id (or one event JSON) per line."""
    ids = []
    try:
        with open(path, errors="replace") as lines:
            for line in lines:
                line = line.strip()
                if line.startswith("{"):
                    try:
                        line = json.loads(line).get("id", "")
                    except ValueError:
                        continue
                if line:
                    ids.append(line)
    except FileNotFoundError:
        pass
    return ids


class Broker:
    """mosquitto on a free port, keeping sessions and queued messages across a graceful restart."""

    def __init__(self, name="mosquitto"):
        self.port = free_port()
        store = os.path.join(WORK, name)
        os.makedirs(store)
        self.config = os.path.join(store, "mosquitto.conf")
        with open(self.config, "w") as out:
            # `user`: as root, mosquitto would switch to user mosquitto, who cannot write the store here.
            out.write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\nuser {getpass.getuser()}\n"
                      f"persistence true\npersistence_location {store}/\nautosave_interval 0\n"
                      "max_queued_messages 10000000\nmax_inflight_messages 0\n"
                      f"log_dest file {store}/mosquitto.log\n")
        self.process = None
        self.restarting = threading.Lock()
        self.start()

    def start(self):
        self.process = subprocess.Popen(["/usr/sbin/mosquitto", "-c", self.config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def accepts():
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return True
            except OSError:
                return False
        wait_for("mosquitto to listen", accepts)

    def stop(self):
        self.process.terminate()
        self.process.wait()

    def restart(self):
        with self.restarting:  # one at a time: in a short run the restarts come closer than BROKER_DOWN_SECONDS
            self.stop()
            time.sleep(BROKER_DOWN_SECONDS)
            self.start()


class Webhook:
    """An HTTP server recording each event id it answered 200 for; 500 while `failing`."""

    def __init__(self):
        self.failing = False
        self.answered_500 = 0
        self.lock = threading.Lock()
        self.ids = []
        webhook = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                failing = webhook.failing
                self.send_response(500 if failing else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()
                with webhook.lock:
                    if failing:
                        webhook.answered_500 += 1
                    else:
                        webhook.ids.append(self.headers.get("Idempotency-Key", ""))

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/soak"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def received(self):
        with self.lock:
            return list(self.ids)


class Daemon:
    """One `tagrouter run`: events on stdin, JSON log lines collected from stderr."""

    def __init__(self, config, number, events_from_stdin=True, log_level="debug"):
        self.log_path = os.path.join(WORK, f"tagrouter-{number}.log")
        self.log = open(self.log_path, "w")
        events = ["--events-from", "-"] if events_from_stdin else []
        self.process = subprocess.Popen(
            [TAGROUTER, "run", "--config", config, *events, "--log-format", "json", "--log-level", log_level],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=WORK)
        self.pid = self.process.pid
        self.lock = threading.Lock()
        self.written_ahead = {action: 0 for action in ACTIONS.values()}
        self.failures = []  # (action, event id or None, count, message, reason)
        self.stopped = None
        self.routed = {}  # reader → events routed (the tap lines)
        self.routed_at = {}  # tag UID → when its tap line says it was routed (epoch seconds)
        self.reader = threading.Thread(target=self._read_log, daemon=True)
        self.reader.start()

    def _read_log(self):
        for raw in self.process.stderr:
            line = raw.decode(errors="replace")
            self.log.write(line)
            if '"routes":' in line and self._count_routed(line):
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            message, action = entry.get("msg", ""), entry.get("action")
            with self.lock:
                if action in self.written_ahead and message == f"{action}: written ahead to the spool":
                    self.written_ahead[action] += entry.get("count", 0)
                elif message == "stopped":
                    self.stopped = entry
                elif action and message.startswith(tuple(f"{action}: {failure}" for failure in FAILURES)):
                    self.failures.append((action, entry.get("event_id"), entry.get("count", 1), message, entry.get("reason", "")))
        self.log.close()

    def _count_routed(self, line):
        """Counts a tap line per reader (a flood's are not parsed further); False for the others."""
        reader = line.partition('"reader":"')[2].partition('"')[0]
        if not reader:
            return False
        with self.lock:
            self.routed[reader] = self.routed.get(reader, 0) + 1
        if reader != FLOOD_READER:
            entry = json.loads(line)
            with self.lock:
                self.routed_at.setdefault(entry.get("tag_uid"), log_time(entry["time"]))
        return True

    def routed_count(self, reader):
        with self.lock:
            return self.routed.get(reader, 0)

    def routed_time(self, uid):
        with self.lock:
            return self.routed_at.get(uid)

    def cpu_seconds(self):
        """User + system CPU the daemon has used so far."""
        with open(f"/proc/{self.pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def send(self, line):
        self.process.stdin.write(line)

    def accepted_by_every_action(self):
        with self.lock:
            return min(self.written_ahead.values())

    def sample(self):
        """(resident KiB, open fds), or None once it is gone."""
        try:
            with open(f"/proc/{self.pid}/status") as status:
                rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
            return rss, len(os.listdir(f"/proc/{self.pid}/fd"))
        except (OSError, StopIteration):
            return None


def event_line(number):
    event = {"event": "tag.arrived", "id": str(uuid.uuid4()), "time": "2026-12-01T12:00:00.000Z", "reader": "soak",
             "tag": {"uid": "04%012x" % number, "type": "ntag215"},
             "ndef": {"records": [{"tnf": 1, "type": "U", "uri": f"https://example.com/{number}"}]},
             "uri": f"https://example.com/{number}"}
    return event["id"], (json.dumps(event, separators=(",", ":")) + "\n").encode()


def write_config(broker, webhook):
    with open(os.path.join(WORK, "exec-plugin.py"), "w") as out:
        out.write("import json, sys\nsys.stdin.readline()\nwith open('exec.ids', 'a') as ids:\n"
                  "    for line in sys.stdin:\n        ids.write(json.loads(line)['id'] + '\\n'); ids.flush()\n"
                  "        print('{\"ok\":true}', flush=True)\n")
    retry = "retry: {attempts: 3, backoff: 200ms, max_backoff: 2s}"
    config = os.path.join(WORK, "tagrouter.yaml")
    with open(config, "w") as out:
        out.write(f"""state_dir: {WORK}/state
mqtt: {{host: 127.0.0.1, port: {broker.port}, client_id: soak-daemon, reconnect_delay: 100ms, reconnect_delay_max: 1s}}
shell: {{max_concurrent: 8}}
routes:
  - name: soak
    actions:
      - mqtt: {{topic: "soak/{{{{reader}}}}", qos: 1, {retry}}}
      - webhook: {{url: "{webhook.url}", timeout: 5s, {retry}}}
      - shell: {{script: 'echo "$TAG_EVENT_ID" >> shell.ids', {retry}}}
      - exec: {{command: [python3, exec-plugin.py], {retry}}}
""")
    return config


def after_warm_up(series):
    """The samples after the first quarter of a daemon's life (start-up, spool recovery, first connections)."""
    return series[len(series) // 4:]


def slope_kib_per_minute(samples):
    """Least-squares slope of (seconds, KiB)."""
    n = len(samples)
    if n < 3:
        return None
    mean_t = sum(t for t, _, _ in samples) / n
    mean_r = sum(r for _, r, _ in samples) / n
    var = sum((t - mean_t) ** 2 for t, _, _ in samples)
    return None if var == 0 else 60 * sum((t - mean_t) * (r - mean_r) for t, r, _ in samples) / var


def soak():
    """The soak proper; True when nothing was lost and the last daemon exited cleanly."""
    broker = Broker()
    subscriber_out = open(os.path.join(WORK, "mqtt.received"), "w")
    subscriber = subprocess.Popen(
        ["/usr/bin/mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", "soak/#", "-q", "1", "-c", "-i", "soak-subscriber", "-F", "%p"],
        stdout=subscriber_out, stderr=subprocess.DEVNULL)
    # Subscribed once a probe comes back (mosquitto_sub says nothing when subscribed, without -d).
    def probe_received():
        subprocess.run(["/usr/bin/mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", "soak/probe", "-q", "1",
                        "-m", '{"id":"probe"}'], check=True)
        time.sleep(0.2)
        return "probe" in read_ids(os.path.join(WORK, "mqtt.received"))
    wait_for("the MQTT subscriber", probe_received)
    webhook = Webhook()
    config = write_config(broker, webhook)
    received = {
        "mqtt": lambda: read_ids(os.path.join(WORK, "mqtt.received")),
        "webhook": webhook.received,
        "shell": lambda: read_ids(os.path.join(WORK, "shell.ids")),
        "exec": lambda: read_ids(os.path.join(WORK, "exec.ids")),
    }

    daemons = [Daemon(config, 1)]
    samples = {1: []}  # daemon number → [(seconds since start, resident KiB, open fds)]
    started = {1: time.monotonic()}
    sampling = True

    def sample_forever():
        while sampling:
            number, daemon = len(daemons), daemons[-1]
            measured = daemon.sample()
            if measured:
                samples[number].append((time.monotonic() - started[number], *measured))
            time.sleep(0.5)
    threading.Thread(target=sample_forever, daemon=True).start()

    ids, lines = [], []
    for number in range(TAPS):
        event_id, line = event_line(number)
        ids.append(event_id)
        lines.append(line)
    restarts = [int(TAPS * share) for share in BROKER_RESTARTS]
    webhook_failing = tuple(int(TAPS * share) for share in WEBHOOK_500)
    kill_at = int(TAPS * DAEMON_KILL)
    resent = 0
    run_start = 0  # index of the first event the current daemon was sent
    began = time.monotonic()
    index = 0
    print(f"soak: {TAPS} taps at {RATE:.0f}/s into {TAGROUTER} (work: {WORK})", flush=True)
    restarts_running = []  # a short run can end while the broker is down: it is stopped once back
    done = set()  # the faults made so far (events sent again after the kill pass their taps twice)

    def first_time(fault):
        if fault in done:
            return False
        done.add(fault)
        return True
    while index < TAPS:
        if index in restarts and first_time(("broker", index)):
            print(f"soak: tap {index}: broker restart", flush=True)
            restarting = threading.Thread(target=broker.restart, daemon=True)
            restarting.start()
            restarts_running.append(restarting)
        if index == webhook_failing[0] and first_time("500"):
            print(f"soak: tap {index}: webhook answers 500", flush=True)
            webhook.failing = True
        if index == webhook_failing[1] and first_time("200"):
            print(f"soak: tap {index}: webhook answers 200 again", flush=True)
            webhook.failing = False
        if index == kill_at and first_time("kill"):
            old = daemons[-1]
            old.process.kill()
            old.process.wait()
            old.reader.join()
            accepted = run_start + old.accepted_by_every_action()
            resent = index - accepted
            print(f"soak: tap {index}: daemon SIGKILLed; {accepted} accepted by every action, {resent} sent again", flush=True)
            started[2], samples[2] = time.monotonic(), []
            daemons.append(Daemon(config, 2))
            index = run_start = accepted
        daemons[-1].send(lines[index])
        index += 1
        lag = began + (index + resent) / RATE - time.monotonic()
        if lag > 0:
            daemons[-1].process.stdin.flush()
            time.sleep(lag)
    daemons[-1].process.stdin.flush()
    sent_seconds = time.monotonic() - began
    print(f"soak: all {TAPS} taps sent in {sent_seconds:.0f} s; waiting for deliveries", flush=True)

    # Wait until every receiver has every event, or nothing new arrives for QUIET_LIMIT_SECONDS.
    wanted = set(ids)
    progress, last_change = None, time.monotonic()
    while True:
        counts = {name: len(wanted.intersection(read())) for name, read in received.items()}
        if all(count == TAPS for count in counts.values()):
            break
        if counts != progress:
            progress, last_change = counts, time.monotonic()
        elif time.monotonic() - last_change > QUIET_LIMIT_SECONDS:
            print(f"soak: no progress for {QUIET_LIMIT_SECONDS} s: {counts}", flush=True)
            break
        time.sleep(1)
    sampling = False
    daemons[-1].process.stdin.close()
    status = daemons[-1].process.wait(timeout=60)
    daemons[-1].reader.join()
    time.sleep(1)  # the subscriber's last lines
    subscriber.terminate()
    for restarting in restarts_running:
        restarting.join()
    broker.stop()
    total_seconds = time.monotonic() - began

    # Accounting per action.
    rows, lost_any = [], False
    for name, action in ACTIONS.items():
        got = received[name]()
        delivered = wanted.intersection(got)
        failed_ids, failed_counts, reasons = set(), 0, set()
        for daemon in daemons:
            for failed_action, event_id, count, message, reason in daemon.failures:
                if failed_action != action:
                    continue
                reasons.add(reason or message)
                if event_id:
                    failed_ids.add(event_id)
                else:
                    failed_counts += count
        failed = len((failed_ids & wanted) - delivered) + failed_counts
        lost = TAPS - len(delivered) - failed
        lost_any |= lost > 0
        rows.append((name, len(delivered), len(got) - len(set(got)), failed, lost, "; ".join(sorted(reasons)) or "—"))

    print()
    print(f"Soak: {TAPS:,} taps at {RATE:.0f}/s ({sent_seconds:.0f} s to send, {total_seconds:.0f} s in all); broker restarted "
          f"{len(restarts)}×, webhook 500 for taps {webhook_failing[0]:,}–{webhook_failing[1]:,} ({webhook.answered_500:,} answers), "
          f"daemon SIGKILLed at tap {kill_at:,} ({resent:,} sent again); last daemon exit status {status}.")
    print()
    print("| action | delivered (distinct ids) | delivered twice | failed, reason logged | silently lost |")
    print("| --- | --- | --- | --- | --- |")
    for name, delivered, twice, failed, lost, reasons in rows:
        print(f"| {name} | {delivered:,} / {TAPS:,} | {twice:,} | {failed:,} ({reasons}) | {lost:,} |")
    print()
    print("| daemon | lived | resident memory after warm-up → end (max) | slope after warm-up | open fds after warm-up → end (max) |")
    print("| --- | --- | --- | --- | --- |")
    for number in sorted(samples):
        series = after_warm_up(samples[number])
        if not series:
            continue
        slope = slope_kib_per_minute(series)
        how = "SIGKILLed" if number < len(daemons) else f"exit {status}"
        print(f"| {number} ({how}) | {samples[number][-1][0]:.0f} s | {series[0][1] / 1024:.1f} → {series[-1][1] / 1024:.1f} MiB "
              f"({max(r for _, r, _ in series) / 1024:.1f}) | {'—' if slope is None else f'{slope:+.1f} KiB/min'} | "
              f"{series[0][2]} → {series[-1][2]} ({max(f for _, _, f in series)}) |")
    with open(os.path.join(WORK, "memory.csv"), "w") as out:
        out.write("daemon,seconds,resident_kib,open_fds\n")
        for number, series in sorted(samples.items()):
            out.writelines(f"{number},{t:.1f},{rss},{fd}\n" for t, rss, fd in series)
    print()
    print(f"Samples: {WORK}/memory.csv. Logs and receivers' files: {WORK}")
    return not lost_any and status == 0


FLOOD_READER = "flood"


def log_time(text):
    """Epoch seconds of a log line's `time` (UTC, milliseconds, `Z`)."""
    return calendar.timegm(time.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")) + float("0" + text[19:-1])


class Simulator:
    """`tagrouter simulate`: a PN532 on a pseudo-terminal whose tags are placed through its control socket."""

    def __init__(self):
        self.link = os.path.join(WORK, "pn532")
        self.control = os.path.join(WORK, "pn532.sock")
        self.process = subprocess.Popen([TAGROUTER, "simulate", "--link", self.link, "--control", self.control, "--no-pacing"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for("the simulator's control socket", lambda: os.path.exists(self.control))

    def request(self, request):
        with socket.socket(socket.AF_UNIX) as control:
            control.connect(self.control)
            control.sendall((json.dumps(request) + "\n").encode())
            answer = control.makefile().readline()
        if '"ok":true' not in answer:
            sys.exit(f"soak: the simulator refused {request}: {answer}")

    def stop(self):
        self.process.terminate()
        self.process.wait()


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def flood():
    """Local taps' latency with and without a flooded `mqtt` input; True when every tap was routed."""
    broker = Broker("mosquitto-flood")
    simulator = Simulator()
    config = os.path.join(WORK, "flood.yaml")
    with open(config, "w") as out:
        out.write(f"""state_dir: {WORK}/flood-state
readers: [{{name: door, device: "pn532_uart:{simulator.link}", cooldown: 0s, exit_delay: 100ms}}]
mqtt: {{host: 127.0.0.1, port: {broker.port}, client_id: soak-flood}}
# max_age: the flood is published at once, its last events are older than the default 30s when routed
inputs: [{{mqtt: {{topic: "fleet/+/tag.arrived", trust: broker, max_age: 10m}}}}]
routes:
  - name: relay
    actions: [{{mqtt: {{topic: "relayed/{{{{reader}}}}"}}}}]
""")
    relayed_path = os.path.join(WORK, "flood.relayed")
    relayed = subprocess.Popen(["/usr/bin/mosquitto_sub", "-p", str(broker.port), "-t", "relayed/door", "-q", "1", "-F", "%U %p"],
                               stdout=open(relayed_path, "w"), stderr=subprocess.DEVNULL)
    daemon = Daemon(config, "flood", events_from_stdin=False, log_level="info")
    # In files of 10,000: one mosquitto_pub publishing 100,000 at once is cut off by mosquitto ("out of memory").
    chunks = []
    for first in range(0, FLOOD, 10000):
        chunks.append(os.path.join(WORK, f"flood-{first:07d}.jsonl"))
        with open(chunks[-1], "w") as out:
            for number in range(first, min(FLOOD, first + 10000)):
                out.write(json.dumps({"event": "tag.arrived", "id": str(uuid.uuid4()), "time": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
                                      "reader": FLOOD_READER, "tag": {"uid": "04%012x" % number, "type": "ntag215"}}, separators=(",", ":")) + "\n")
    taps = iter(range(2 * LATENCY_TAPS + 1))
    placed_at = {}  # tag UID → when it was placed (epoch seconds)

    def delivered():
        """Tag UID → when the relayed tap reached the subscriber (epoch seconds)."""
        arrivals = {}
        with open(relayed_path, errors="replace") as lines:
            for line in lines:
                stamp, _, payload = line.partition(" ")
                uid = payload.partition('"uid":"')[2].partition('"')[0]
                if uid:
                    arrivals.setdefault(uid, float(stamp))
        return arrivals

    def tap():
        """Places a tag with a new UID, waits until it is routed, takes it off; its UID and routing latency (None: not routed)."""
        uid = "05%012x" % next(taps)
        placed = placed_at[uid] = time.time()
        simulator.request({"op": "place", "type": "ntag215", "uid": uid})
        deadline = time.monotonic() + 300
        while daemon.routed_time(uid) is None and time.monotonic() < deadline:
            time.sleep(0.005)
        simulator.request({"op": "remove"})
        time.sleep(0.2)  # gone for longer than exit_delay: the next tag is a new tap
        routed = daemon.routed_time(uid)
        return uid, None if routed is None else routed - placed

    first, latency = tap()  # the first, once the reader is open and the subscriber listens, is not counted
    if latency is None:
        sys.exit("soak: the local reader routed no tap (see the flood daemon's log)")
    wait_for("the first tap relayed", lambda: first in delivered(), seconds=60)
    quiet = [tap() for _ in range(LATENCY_TAPS)]
    cpu_before, began = daemon.cpu_seconds(), time.monotonic()
    publish = " && ".join(f"mosquitto_pub -p {broker.port} -q 1 -t fleet/pi-1/tag.arrived -l < {chunk}" for chunk in chunks)
    publisher = subprocess.Popen(["/bin/sh", "-c", publish])
    wait_for("the flood to begin", lambda: daemon.routed_count(FLOOD_READER) > 0, seconds=60)
    flooded, during = [], 0
    for _ in range(LATENCY_TAPS):
        flooded.append(tap())
        during += daemon.routed_count(FLOOD_READER) < FLOOD
    wait_for("the flood to be routed", lambda: daemon.routed_count(FLOOD_READER) >= FLOOD, seconds=3600)
    seconds, cpu = time.monotonic() - began, daemon.cpu_seconds() - cpu_before
    publisher.wait()
    wait_for("the last tap relayed", lambda: all(uid in delivered() for uid, _ in quiet + flooded), seconds=120)
    arrivals = delivered()
    relayed.terminate()
    daemon.process.stdin.close()
    daemon.process.terminate()
    daemon.process.wait(timeout=60)
    simulator.stop()
    broker.stop()

    print()
    print(f"Flood: {FLOOD:,} events published at once on an `mqtt` input (QoS 1) beside a local reader; routed in {seconds:.1f} s "
          f"({FLOOD / seconds:,.0f} events/s, {cpu:.1f} s CPU: {1e6 * cpu / FLOOD:,.0f} µs per event); "
          f"{during} of {LATENCY_TAPS} flooded taps were routed before the flood drained.")
    print()
    print("Latency of a local tap from placing the tag: to its routing (the daemon's tap line), and to its relayed message at a subscriber.")
    print()
    print("| local taps | routed | routed p50 | p99 | max | relayed p50 | p99 | max |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")

    def figures(values):
        return " | ".join(f"{1000 * value:.0f} ms" for value in (percentile(values, 0.5), percentile(values, 0.99), max(values))) if values else "— | — | —"
    for name, taps_made in (("quiet input", quiet), ("flooded input", flooded)):
        routed = [latency for _, latency in taps_made if latency is not None]
        relayed_latencies = [arrivals[uid] - placed_at[uid] for uid, _ in taps_made if uid in arrivals]
        print(f"| {name} | {len(routed)} / {len(taps_made)} | {figures(routed)} | {figures(relayed_latencies)} |")
    return all(latency is not None for _, latency in quiet + flooded)


def main():
    if not os.access(TAGROUTER, os.X_OK):
        sys.exit(f"soak: {TAGROUTER} is missing (make release)")
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    passed = True
    if "soak" in PHASES:
        passed &= soak()
    if "flood" in PHASES:
        passed &= flood()
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
