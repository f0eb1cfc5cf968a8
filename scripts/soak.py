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
"""
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
TAGROUTER = os.path.join(ROOT, ".build/release/tagrouter")
WORK = os.path.join(ROOT, ".build/soak")
TAPS = int(os.environ.get("SOAK_TAPS", "100000"))
RATE = float(os.environ.get("SOAK_RATE", "200"))
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

    def __init__(self):
        self.port = free_port()
        self.config = os.path.join(WORK, "mosquitto.conf")
        with open(self.config, "w") as out:
            # `user`: as root, mosquitto would switch to user mosquitto, who cannot write the store here.
            out.write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\nuser {getpass.getuser()}\n"
                      f"persistence true\npersistence_location {WORK}/\nautosave_interval 0\n"
                      "max_queued_messages 10000000\nmax_inflight_messages 0\n"
                      f"log_dest file {WORK}/mosquitto.log\n")
        self.process = None
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

    def __init__(self, config, number):
        self.log_path = os.path.join(WORK, f"tagrouter-{number}.log")
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [TAGROUTER, "run", "--config", config, "--events-from", "-", "--log-format", "json", "--log-level", "debug"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=WORK)
        self.pid = self.process.pid
        self.lock = threading.Lock()
        self.written_ahead = {action: 0 for action in ACTIONS.values()}
        self.failures = []  # (action, event id or None, count, message, reason)
        self.stopped = None
        self.reader = threading.Thread(target=self._read_log, daemon=True)
        self.reader.start()

    def _read_log(self):
        for raw in self.process.stderr:
            line = raw.decode(errors="replace")
            self.log.write(line)
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


def main():
    if not os.access(TAGROUTER, os.X_OK):
        sys.exit(f"soak: {TAGROUTER} is missing (make release)")
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
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
    done = set()  # the faults made so far (events sent again after the kill pass their taps twice)

    def first_time(fault):
        if fault in done:
            return False
        done.add(fault)
        return True
    while index < TAPS:
        if index in restarts and first_time(("broker", index)):
            print(f"soak: tap {index}: broker restart", flush=True)
            threading.Thread(target=broker.restart, daemon=True).start()
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
    sys.exit(1 if lost_any or status != 0 else 0)


if __name__ == "__main__":
    main()
