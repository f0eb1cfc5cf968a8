#!/usr/bin/env python3
"""The test suite in lanes (`make test`): several test processes side by side, each running one test at a time.

The suite mostly waits (for simulators, brokers, daemons, browsers), so one process after the other left the
machine idle: 280 s of tests in 4m44 with 2 min of CPU. Each lane is its own process running its tests one at
a time, as the whole suite used to: nothing a test does in its process (the shared pcscd, PCSCLITE_CSOCK_NAME,
blocking waits on the cooperative pool) meets a test of another lane. docs/development/testing.md says how
the groups are chosen and where a new test goes.

The groups below partition the suite: a test belongs to the first group whose regular expression matches
its name (`Target.Suite/test()`), and the last lane takes every test no group names, so a new test always
runs. Lanes start longest first (by the seconds noted below) and TEST_LANES (default 3) run at once. Each
lane's output goes to .build/test-lanes/<group>.log; a failed lane's log is printed whole.

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
    ("reader-behaviour", r"^TagReaderTests\.ReaderBehaviourTests/", 29),
    ("tag-reader", r"^TagReaderTests\.", 60),
    ("router-end-to-end", r"^RouterEndToEndTests\.", 67),
    ("end-to-end-pages", r"^EndToEndTests\.(LivePageEndToEndTests|DemoTests)/", 35),
    ("end-to-end", r"^EndToEndTests\.", 62),
    ("action-plugins", r"^ActionPluginTests\.", 45),
    ("packaging", r"^PackagingTests\.", 80),
    ("mqtt-plugin", r"^MQTTPluginTests\.", 18),
]
# Every test no group names (the in-process suites, mostly), and the seconds its lane took.
REST, REST_SECONDS = "rest", 75


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


def stop_leftovers():
    """Ends every process still our child once the lanes are done (SIGTERM, then SIGKILL after 2 s), and names them."""
    def children():
        found = {}
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    command = cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                continue
            if int(fields[1]) == os.getpid() and fields[0] != "Z":
                found[int(pid)] = command
        return found

    left = children()
    for number in (signal.SIGTERM, signal.SIGKILL):
        for pid in left if number == signal.SIGTERM else children():
            try:
                os.kill(pid, number)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 2
        while children() and time.monotonic() < deadline:
            time.sleep(0.05)
    while True:  # reap them
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                break
        except ChildProcessError:
            break
    for pid, command in sorted(left.items()):
        print(f"left behind by a test, now stopped: {pid} {command[:160]}", flush=True)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    logs = os.path.join(root, ".build", "test-lanes")
    os.makedirs(logs, exist_ok=True)
    width = int(os.environ.get("TEST_LANES", "3"))
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

    def run(name, selection):
        log = os.path.join(logs, name + ".log")
        command = [binary, "--testing-library", "swift-testing", "--no-parallel", *selection]
        begin = time.monotonic()
        with open(log, "w") as out:
            out.write("$ " + " ".join(command) + "\n")
            out.flush()
            with lock:
                if stopping.is_set():
                    return
                # A session of its own, so an interrupted run can stop the lane and everything in its group.
                process = subprocess.Popen(command, cwd=root, stdout=out, stderr=subprocess.STDOUT,
                                           env=dict(os.environ, NO_COLOR="1"), start_new_session=True)
                running[name] = process
            status = process.wait()
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

    stop_leftovers()
    # One line for the whole run, in the form of Swift Testing's own (scripts/stress-test.sh reads it).
    elapsed = time.monotonic() - started
    if failed:
        print(f"\n✘ Test run with {sum(tests)} tests in {len(jobs)} lanes failed after {elapsed:.0f} seconds: "
              f"{', '.join(failed)} (logs in {logs}).", flush=True)
        sys.exit(1)
    print(f"\n✔ Test run with {sum(tests)} tests in {len(jobs)} lanes passed after {elapsed:.0f} seconds.", flush=True)


if __name__ == "__main__":
    main()
