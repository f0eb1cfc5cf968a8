#!/usr/bin/env python3
"""The test suite in lanes (`make test`): several test processes side by side, each running one test at a time.

The suite mostly waits (for simulators, brokers, daemons, browsers), so one process after the other left the
machine idle: 280 s of tests in 4m44 with 2 min of CPU. Each lane is its own process running its tests one at
a time, as the whole suite used to: nothing a test does in its process (the shared pcscd, PCSCLITE_CSOCK_NAME,
blocking waits on the cooperative pool) meets a test of another lane. docs/development/testing.md says how
the groups are chosen and where a new test goes.

The groups below partition the suite: a test belongs to the first group whose regular expression matches
its name (`Target.Suite/test()`), and the last lane takes every test no group names, so a new test always
runs. Lanes start longest first (by the seconds noted below) and TEST_LANES (default 4) run at once. Each
lane's output goes to .build/test-lanes/<group>.log; a failed lane's log is printed whole.

Everything a test starts must end with that test. The test helpers put `TAGROUTER_TEST=<test id>` in the
environment of what they start, and each lane writes Swift Testing's event stream: when a test has ended, a
process of ours still carrying its id (after a grace) is named with the test and stopped. Every lane process
also carries `TAGROUTER_TEST_LANE=<group>`, so what outlives its lane is named with the lane at the end.

The tests must be built (`swift build --build-tests`). The lanes run the test binary itself, as `swift test`
does, because two `swift test` at once wait for each other's lock on .build. The suite is Swift Testing only:
the run stops if an XCTest test appears, as no lane would run it.
"""
import ctypes
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

# (name, regular expression, seconds its lane took beside 3 others on a loaded machine): a test belongs to the
# first group that matches it, so a group taken out of a larger one comes before it.
GROUPS = [
    ("reader-behaviour", r"^TagReaderTests\.ReaderBehaviourTests/", 22),
    ("reader-loop", r"^TagReaderTests\.(ReaderLoopTests|SUNEndToEndTests|ReaderSupervisionTests|LibNFCDriverListTests)/", 31),
    ("tag-reader", r"^TagReaderTests\.", 29),
    ("router-delivery", r"^RouterEndToEndTests\.(WriteAheadTests|ReloadEndToEndTests|FirstRunTests|SecretTests|BrokerKillTests"
     r"|ShutdownTests|ActivityLogTests)/", 23),
    ("router-end-to-end", r"^RouterEndToEndTests\.", 21),
    ("end-to-end-pages", r"^EndToEndTests\.(LivePageEndToEndTests|DemoTests)/", 27),
    ("end-to-end-mqtt", r"^EndToEndTests\.(MQTT\w*|Replay\w*|KilledRouterTests|SharedSubscriptionTests|InputRefusals\w*"
     r"|ProtectedWrite\w*|WriteThroughDaemonTests)/", 28),
    ("end-to-end", r"^EndToEndTests\.", 33),
    ("action-plugins", r"^ActionPluginTests\.", 28),
    ("packaging", r"^PackagingTests\.", 30),
    ("mqtt-plugin", r"^MQTTPluginTests\.", 35),
]
# Every test no group names (the in-process suites, mostly), and the seconds its lane took.
REST, REST_SECONDS = "rest", 34
# How long a test's processes have to end after the test did, before they are named and stopped: the helpers
# wait for their children in `deinit`, so this only covers what a test started by other means.
GRACE = 5


def arguments(index):
    """The test binary's arguments selecting the group at `index`, or (index == len(GROUPS)) every test no group names."""
    earlier = [pattern for _, pattern, _ in GROUPS[:index]]
    selection = ["--filter", GROUPS[index][1]] if index < len(GROUPS) else []
    return selection + [argument for pattern in earlier for argument in ("--skip", pattern)]


def adopt_orphans():
    """Makes this process the child subreaper of everything the lanes start: a process a test left behind (its test
    process ended without stopping it) becomes our child instead of init's, so `stop_leftovers` can end it."""
    PR_SET_CHILD_SUBREAPER = 36
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def process_info(pid):
    """(state, parent pid, command line, environment) of process `pid`, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            command = cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
        with open(f"/proc/{pid}/environ", "rb") as environ:
            environment = dict(entry.split(b"=", 1) for entry in environ.read().split(b"\0") if b"=" in entry)
    except (OSError, ValueError):
        return None
    return fields[0], int(fields[1]), command, {key.decode(errors="replace"): value.decode(errors="replace")
                                                for key, value in environment.items()}


def ours(pid):
    """True when process `pid` descends from this runner: its lanes, what they start, what they left behind (adopted)."""
    seen = 0
    while pid > 1 and seen < 64:
        if pid == os.getpid():
            return True
        try:
            with open(f"/proc/{pid}/stat") as stat:
                pid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            return False
        seen += 1
    return False


def live_processes(select):
    """{pid: (command, environment)} of our live (not zombie) processes whose environment satisfies `select`."""
    found = {}
    for pid in map(int, filter(str.isdigit, os.listdir("/proc"))):
        if pid == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as environ:
                if not select(environ.read()):
                    continue
        except OSError:
            continue
        info = process_info(pid)
        if info and info[0] != "Z" and ours(pid):
            found[pid] = (info[2], info[3])
    return found


def end_processes(pids, first=signal.SIGTERM):
    """Signals `pids` (`first`, then SIGKILL after 2 s for those still alive) and waits until they are gone."""
    for number in (first, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, number)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline and any(alive(pid) for pid in pids):
            time.sleep(0.05)


def alive(pid):
    """True while process `pid` runs (a zombie has ended)."""
    info = process_info(pid)
    return info is not None and info[0] != "Z"


def reap():
    """Reaps every ended child of ours (adopted processes included) without waiting for the others: only once the
    lanes are done, as it would reap a lane's own process too."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                return
        except ChildProcessError:
            return


def left_by(test_id, lane):
    """After test `test_id` of `lane` ended: its processes still running after GRACE are named and stopped.
    Returns the lines naming them."""
    marker = ("TAGROUTER_TEST=" + test_id + "\0").encode()
    deadline = time.monotonic() + GRACE
    while True:
        found = live_processes(lambda environ: marker in environ + b"\0")
        if not found or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    if not found:
        return []
    end_processes(list(found), first=signal.SIGKILL)  # an adopted one stays a zombie until the lanes are done
    return [f"left behind by {test_id} (lane {lane}), now stopped: {pid} {command[:160]}"
            for pid, (command, _) in sorted(found.items())]


def follow_events(path, lane, done, report, timed):
    """Reads lane `lane`'s Swift Testing event stream at `path` until the event `done` is set and the stream is read
    to its end, and calls `report` with the lines of `left_by` for each test that ended, and `timed` with
    (seconds, lane, test name) for each test function that ended."""
    pending = b""
    handle = None
    functions, started = set(), {}
    while True:
        running = not done.is_set()
        if handle is None and os.path.exists(path):
            handle = open(path, "rb")
        chunk = handle.read() if handle else b""
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("kind") == "test" and record.get("payload", {}).get("kind") == "function":
                functions.add(record["payload"].get("id"))
            payload = record.get("payload", {}) if record.get("kind") == "event" else {}
            test_id = payload.get("testID")
            if payload.get("kind") == "testStarted" and test_id in functions:
                started[test_id] = payload.get("instant", {}).get("absolute")
            if payload.get("kind") == "testEnded" and test_id:
                if started.get(test_id) is not None:
                    # The name without its source location: `Target.Suite/test()`, as the groups match it.
                    timed((payload["instant"]["absolute"] - started.pop(test_id), lane, test_id.rsplit("/", 1)[0]))
                report(left_by(test_id, lane))
        if not running and not chunk:
            break
        if not chunk:
            time.sleep(0.1)
    if handle:
        handle.close()


def stop_leftovers():
    """Ends every process still our child once the lanes are done (SIGTERM, then SIGKILL after 2 s), and names them
    with the test (or at least the lane) that started them."""
    left = live_processes(lambda _: True)
    end_processes(list(left))
    reap()
    for pid, (command, environment) in sorted(left.items()):
        owner = environment.get("TAGROUTER_TEST") or "lane " + environment.get("TAGROUTER_TEST_LANE", "?")
        print(f"left behind by a test ({owner}), now stopped: {pid} {command[:160]}", flush=True)
    return len(left)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    logs = os.path.join(root, ".build", "test-lanes")
    os.makedirs(logs, exist_ok=True)
    width = int(os.environ.get("TEST_LANES", "4"))
    if width < 1:
        sys.exit("TEST_LANES must be 1 or more")
    binary = os.path.join(subprocess.run(["swift", "build", "--show-bin-path"], cwd=root, check=True, capture_output=True,
                                         text=True).stdout.strip(), "tagrouterPackageTests.xctest")
    listing = json.loads(subprocess.run([binary, "--dump-tests-json"], cwd=root, check=True, capture_output=True, text=True).stdout)
    if any(bundle["tests"] for bundle in listing["tests"]):
        sys.exit("XCTest tests found: the lanes run Swift Testing only; write them with `import Testing`")
    jobs = [(name, arguments(index), seconds) for index, (name, _, seconds) in enumerate(GROUPS)]
    jobs.append((REST, arguments(len(GROUPS)), REST_SECONDS))
    # Longest first: a long lane started last would run on alone at the end.
    queue = sorted(jobs, key=lambda job: -job[2])

    adopt_orphans()
    started = time.monotonic()
    failed = []
    tests = []
    lock = threading.Lock()
    running = {}
    stopping = threading.Event()

    leaks = []
    durations = []

    def timed(entry):
        with lock:
            durations.append(entry)

    def report(lines):
        with lock:
            leaks.extend(lines)
        for line in lines:
            print(line, flush=True)

    def run(name, selection):
        log = os.path.join(logs, name + ".log")
        events = os.path.join(logs, name + ".events.jsonl")
        if os.path.exists(events):
            os.remove(events)
        command = [binary, "--testing-library", "swift-testing", "--no-parallel",
                   "--event-stream-output-path", events, "--event-stream-version", "0", *selection]
        begin = time.monotonic()
        done = threading.Event()
        follower = threading.Thread(target=follow_events, args=(events, name, done, report, timed), daemon=True)
        with open(log, "w") as out:
            out.write("$ " + " ".join(command) + "\n")
            out.flush()
            with lock:
                if stopping.is_set():
                    return
                # A session of its own, so an interrupted run can stop the lane and everything in its group.
                process = subprocess.Popen(command, cwd=root, stdout=out, stderr=subprocess.STDOUT,
                                           env=dict(os.environ, NO_COLOR="1", TAGROUTER_TEST_LANE=name), start_new_session=True)
                running[name] = process
            follower.start()
            status = process.wait()
        done.set()
        follower.join()
        with lock:
            del running[name]
            with open(log) as text:
                lines = text.read().splitlines()
            summary = next((line for line in reversed(lines) if "Test run with" in line), "")
            tests.append(int(re.search(r"Test run with (\d+) tests", summary).group(1)) if summary else 0)
            if status != 0:
                failed.append(name)
                print(f"\n==== lane {name} FAILED (exit {status}) — {log} ====", flush=True)
                print("\n".join(lines), flush=True)
            print(f"lane {name}: {time.monotonic() - begin:.1f} s: {summary or 'no summary (exit %d)' % status}", flush=True)

    def stop(number, _frame):
        with lock:
            stopping.set()  # no lane starts after this
            for process in running.values():
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        sys.exit(128 + number)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                name, selection, _ = queue.pop(0)
            run(name, selection)

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(min(width, len(queue)))]
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        time.sleep(0.2)

    adopted = stop_leftovers()
    # Every test that ran, slowest first (seconds, lane, name): what to balance the groups by, and the list of
    # names to compare when tests are merged or moved. The slowest are printed.
    durations.sort(reverse=True)
    with open(os.path.join(logs, "durations.tsv"), "w") as table:
        table.writelines(f"{seconds:.3f}\t{lane}\t{test}\n" for seconds, lane, test in durations)
    print("\nslowest tests (all in .build/test-lanes/durations.tsv): " + "; ".join(
        f"{test} {seconds:.1f} s ({lane})" for seconds, lane, test in durations[:5]), flush=True)
    if leaks or adopted:
        print(f"\n{len(leaks) + adopted} process(es) outlived their test (named above): "
              "docs/development/testing.md says how to find the cause.", flush=True)
    # One line for the whole run, in the form of Swift Testing's own (scripts/stress-test.sh reads it).
    elapsed = time.monotonic() - started
    if failed:
        print(f"\n✘ Test run with {sum(tests)} tests in {len(jobs)} lanes failed after {elapsed:.0f} seconds: "
              f"{', '.join(failed)} (logs in {logs}).", flush=True)
        sys.exit(1)
    print(f"\n✔ Test run with {sum(tests)} tests in {len(jobs)} lanes passed after {elapsed:.0f} seconds.", flush=True)


if __name__ == "__main__":
    main()
