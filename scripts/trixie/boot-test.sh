#!/usr/bin/env bash
# `make boot-test`: the package as systemd runs it. A Debian 13 tree with systemd (scripts/trixie/boot-root.sh,
# cached) is booted with systemd-nspawn in a throwaway overlay, the freshly built trixie package
# (`make deb SUITE=trixie`) is installed in it with apt, and the unit runs as shipped: every sandbox line in
# force. Only where the container lacks hardware does a test-only drop-in or unit step in, and each is named
# in the output. The checks (docs/guide/service.md "What the boot test covers"):
#   the service active after install and after boot; READY and STATUS= reaching systemd; a simulated tap in
#   the journal as the one documented line; reload with a good and a broken config; restart; stop within
#   TimeoutStopSec; a crash restarted by Restart=on-failure; a hang caught by WatchdogSec; status, events and
#   tags learn from root and from a member of group tagrouter without flags (both name the tag, the service
#   writing the names); a reader the sandbox hides
#   named as such; PC/SC through a socket-activated pcscd with the vpcd card, and pcscd's polkit refusal named
#   when the package's rule is gone; the host sound's documented
#   drop-in with ALSA's null device; no warning or error in the journal of a healthy start and a hundred
#   taps; the daemon's groups in its own user namespace; `systemd-analyze security` at most 1.5; nothing left
#   after `apt purge`.
# Prints one line per check (PASS/FAIL, seconds) and the time of the whole run; exits 1 when a check failed.
# The container is powered off, and its processes and mounts are gone, whatever happened (a private mount
# namespace holds the overlay). Every wait is bounded.
#
#   BOOT_TEST_DEB=FILE   the package to install (default: built now with scripts/trixie/deb.sh, ARCH=amd64)
#   BOOT_TEST_RELEASE=FILE  the swift.org build to try under the unit (default .build/release/tagrouter, built
#                        when missing or older than a source file, as `make test` does)
#   BOOT_TEST_KEEP=1     keep the work folder (logs, the overlay's upper layer) for a look afterwards
# Needs root, systemd-container and mmdebstrap (scripts/install-deps.sh --boot).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "error: $0 needs root: it mounts, and boots a container" >&2; exit 77; }
# shellcheck source=scripts/trixie/common.sh
source scripts/trixie/common.sh
trixie_require systemd-nspawn systemd-container

# Everything below runs in a private mount namespace: the overlay ends with this script, however it ends.
if [ -z "${BOOT_TEST_IN_NAMESPACE:-}" ]; then
    BOOT_TEST_IN_NAMESPACE=1 exec unshare --mount --propagation private -- "$0" "$@"
fi

started=$SECONDS
package=${BOOT_TEST_DEB:-}
if [ -z "$package" ]; then
    echo "== the trixie package (scripts/trixie/deb.sh)"
    package=$(ARCH=amd64 OUT=.build/boot-test COMPRESSION="gzip -z1" scripts/trixie/deb.sh)
fi
package=$(realpath "$package")
# The swift.org build of the binary, for the check of its runtime under the unit.
release=${BOOT_TEST_RELEASE:-$(realpath .build/release/tagrouter 2>/dev/null || true)}
if [ -z "${BOOT_TEST_RELEASE:-}" ] && { [ -z "$release" ] || [ -n "$(find Package.swift Sources Plugins Readers scripts/release scripts/build-release.sh -newer "$release" -print -quit)" ]; }; then
    echo "== the swift.org release build (scripts/build-release.sh)"
    # swift build does not track the release link's order file: a stale binary is linked again.
    rm -f .build/release/tagrouter
    scripts/build-release.sh --product tagrouter >&2
    release=$(realpath .build/release/tagrouter)
fi
echo "== the tree (scripts/trixie/boot-root.sh)"
tree=$(scripts/trixie/boot-root.sh)
prepared=$SECONDS

work=$(mktemp -d /tmp/tagrouter-boot-test.XXXXXX)
root=$work/root
machine=tagrouter-boot-$$
# A device cgroup of this machine's, for the hidden-reader check where the container enforces no DeviceAllow=.
devices_cgroup=/sys/fs/cgroup/devices/tagrouter-boot-test-$$
nspawn_pid=""
leader=""
mkdir -p "$work/upper" "$work/work" "$root"
mount -t overlay overlay -o "lowerdir=$tree,upperdir=$work/upper,workdir=$work/work" "$root"

# --- the container -------------------------------------------------------------------------------

# boot: starts systemd-nspawn (its own network namespace: only loopback, so ports and apt stay inside) and
# waits until the container's systemd has finished booting.
boot() {
    setsid systemd-nspawn -D "$root" -M "$machine" --register=no --keep-unit --boot --console=pipe \
        --private-network </dev/null >>"$work/nspawn.log" 2>&1 &
    nspawn_pid=$!
    until_true 30 container_leader || { echo "systemd-nspawn started no container" >&2; return 1; }
    # is-system-running --wait needs the manager's bus, which appears a moment after PID 1 starts.
    until_true 120 booted || { echo "the container did not finish booting" >&2; return 1; }
}
container_leader() {
    leader=$(pgrep -P "$nspawn_pid" -x systemd || true)
    [ -n "$leader" ]
}
booted() {
    local state
    state=$(box systemctl is-system-running 2>/dev/null || true)
    [ "$state" = running ] || [ "$state" = degraded ]
}
# poweroff: asks the container's systemd to power off and waits for systemd-nspawn to end; kills it after 60 s.
poweroff() {
    [ -n "$nspawn_pid" ] || return 0
    if kill -0 "$nspawn_pid" 2>/dev/null; then
        [ -z "$leader" ] || box systemctl poweroff --no-block >/dev/null 2>&1 || true
        if ! until_true 60 gone "$nspawn_pid"; then
            echo "the container did not power off within 60 s: killed" >&2
            [ -z "$leader" ] || kill -KILL "$leader" 2>/dev/null || true
            kill -KILL "$nspawn_pid" 2>/dev/null || true
        fi
    fi
    wait "$nspawn_pid" 2>/dev/null || true
    nspawn_pid=""
    leader=""
}
gone() { ! kill -0 "$1" 2>/dev/null; }
reboot_container() { poweroff && boot; }
cleanup() {
    local status=$?
    [ -z "$leader" ] || end_background
    poweroff
    [ ! -d "$devices_cgroup" ] || rmdir "$devices_cgroup" 2>/dev/null || true
    umount "$root" 2>/dev/null || umount -l "$root" 2>/dev/null || true
    # systemd-nspawn leaves its propagation folder when /run is no tmpfs (as here): only this run's.
    rmdir "/run/systemd/nspawn/propagate/$machine" 2>/dev/null || true
    if [ -n "${BOOT_TEST_KEEP:-}" ]; then echo "kept: $work"; else rm -rf "$work"; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# box COMMAND... — runs COMMAND in the container as root, with a clean environment.
box() {
    nsenter -t "$leader" -a -- /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
}
# as USER COMMAND... — the same as USER, with their groups and their own environment (no XDG_RUNTIME_DIR).
as() {
    local user=$1
    shift
    box setpriv --reuid="$user" --regid="$user" --init-groups --reset-env -- "$@"
}
# spawn NAME COMMAND... — COMMAND in the container in the background, its output in $work/NAME.txt;
# end_background [NAME] stops it (or every one still running). nsenter does not pass signals on, so each
# process's pid inside the container is kept in /var/tmp (on the overlay, seen from here) to stop it there.
background=()
spawn() {
    local name=$1
    shift
    rm -f "$root/var/tmp/boot-test-$name.pid"
    box sh -c 'echo $$ >"$0"; exec "$@"' "/var/tmp/boot-test-$name.pid" "$@" >"$work/$name.txt" 2>&1 &
    background+=("$name:$!")
    until_true 10 test -s "$root/var/tmp/boot-test-$name.pid"
}
# in_background NAME USER COMMAND... — spawn as USER, for at most a minute.
in_background() {
    local name=$1 user=$2
    shift 2
    spawn "$name" setpriv --reuid="$user" --regid="$user" --init-groups --reset-env -- timeout 60 "$@"
}
end_background() {
    local entry kept=()
    for entry in "${background[@]}"; do
        if [ -n "${1:-}" ] && [ "${entry%%:*}" != "$1" ]; then kept+=("$entry"); continue; fi
        box kill "$(cat "$root/var/tmp/boot-test-${entry%%:*}.pid")" 2>/dev/null || true
        wait "${entry#*:}" 2>/dev/null || true
        rm -f "$root/var/tmp/boot-test-${entry%%:*}.pid"
    done
    background=("${kept[@]}")
}

# --- what the service says -----------------------------------------------------------------------

# The unit's journal is followed into a file from the moment `follow` is called, so a wait reads a file.
journal=$work/journal.txt
follow() {
    stop_following
    spawn journal journalctl -f -q -n 0 -u tagrouter -o short-precise
    # journalctl prints nothing until an entry comes: give it a moment to be reading before anything happens.
    sleep 0.5
}
stop_following() { end_background journal; }
journal_has() { grep -q -- "$1" "$journal"; }
wait_journal() { until_true "${2:-30}" journal_has "$1" || { echo "not in the journal within ${2:-30} s: $1" >&2; tail -n 20 "$journal" >&2; return 1; }; }
property() { box systemctl show tagrouter -p "$1" --value; }
# main_pid — the daemon's pid in the container; fails when there is none (a signal to pid 0 would reach this script).
main_pid() {
    local pid
    pid=$(property MainPID)
    [ "${pid:-0}" -gt 0 ] || { echo "tagrouter.service has no main process" >&2; return 1; }
    echo "$pid"
}
active() { [ "$(box systemctl is-active tagrouter 2>/dev/null || true)" = active ]; }
restarted_since() { [ "$(property NRestarts)" -gt "$1" ] && active; }

# --- the simulated reader ------------------------------------------------------------------------

sim() { as tagrouter tagrouter simulate --control /srv/sim/pn532.sock --request "$1" >/dev/null; }
place() { sim "{\"op\":\"place\",\"type\":\"ntag215\",\"uid\":\"$1\",\"records\":[{\"uri\":\"https://example.com/${2:-a}\"}]}"; }
lift() { sim '{"op":"remove"}'; }
# tap UID — places the tag, waits for its line in the journal, lifts it.
tap() {
    local seen=0
    place "$1" "${2:-a}" || return 1
    wait_journal "tap on reader: ntag215 $1" || seen=$?
    lift || return 1
    return "$seen"
}

# --- checks --------------------------------------------------------------------------------------

results=()
failed=0
# record NAME START STATUS LOG — prints PASS or FAIL with the seconds since START; on a failure LOG and the
# journal's last lines.
record() {
    local name=$1 start=$2 status=$3 log=$4 line
    line=$(printf '%-4s %3ss  %s' "$([ "$status" = 0 ] && echo PASS || echo FAIL)" $((SECONDS - start)) "$name")
    echo "$line"
    results+=("$line")
    if [ "$status" != 0 ]; then
        failed=$((failed + 1))
        sed 's/^/     | /' "$log"
        [ -z "$leader" ] || box journalctl -q -u tagrouter -n 15 --no-pager 2>/dev/null | sed 's/^/     journal| /' || true
    elif [ -s "$log" ]; then
        sed 's/^/     | /' "$log"
    fi
}
# check NAME FUNCTION — runs the check in a subshell with errexit in force, and records it. A check that
# failed half-way leaves the service's config and drop-ins as they were before it, so later checks still run.
check() {
    local name=$1 start=$SECONDS status
    shift
    snapshot
    # The checks restart the service more often than a user would: systemd's start limit
    # (5 starts in 10 s by default) is about a unit that keeps failing, not about this test's pace.
    box systemctl reset-failed tagrouter 2>/dev/null || true
    set +e
    (
        set -e
        trap end_background EXIT
        "$@"
    ) >"$work/check.log" 2>&1
    status=$?
    set -e
    record "$name" "$start" "$status" "$work/check.log"
    [ "$status" = 0 ] || restore
}
snapshot() {
    rm -rf "$work/snapshot"
    mkdir -p "$work/snapshot"
    [ ! -d "$root/etc/tagrouter" ] || cp -a "$root/etc/tagrouter" "$work/snapshot/config"
    [ ! -d "$root/etc/systemd/system/tagrouter.service.d" ] || cp -a "$root/etc/systemd/system/tagrouter.service.d" "$work/snapshot/drop-ins"
}
restore() {
    [ -d "$work/snapshot/config" ] || return 0
    echo "     (the config and drop-ins are put back as they were before this check)"
    rm -rf "$root/etc/tagrouter" "$root/etc/systemd/system/tagrouter.service.d"
    cp -a "$work/snapshot/config" "$root/etc/tagrouter"
    [ ! -d "$work/snapshot/drop-ins" ] || cp -a "$work/snapshot/drop-ins" "$root/etc/systemd/system/tagrouter.service.d"
    [ ! -e "$root/var/tmp/polkit.rules" ] || mv "$root/var/tmp/polkit.rules" "$root/usr/share/polkit-1/rules.d/60-tagrouter-pcscd.rules"
    if [ -e "$root/etc/systemd/system/tagrouter-vpcd.service" ]; then
        box systemctl stop tagrouter-vpcd.service || true
        rm -f "$root/etc/systemd/system/tagrouter-vpcd.service"
    fi
    box systemctl daemon-reload || true
    box systemctl restart tagrouter || true
    until_true 30 active || echo "     tagrouter.service is not active again"
}
# step NAME FUNCTION — the same in this shell, for what changes its state (booting); FUNCTION returns 1 on failure.
step() {
    local name=$1 start=$SECONDS status=0
    shift
    "$@" >"$work/check.log" 2>&1 || status=$?
    record "$name" "$start" "$status" "$work/check.log"
    return "$status"
}
# fixture TEXT — a test-only addition to the container, named in the output.
fixture() { echo "     test-only: $*"; }

check_install() {
    cp "$package" "$root/root/tagrouter.deb"
    box env DEBIAN_FRONTEND=noninteractive apt-get install -y -q /root/tagrouter.deb >"$work/apt.log" 2>&1 ||
        { cat "$work/apt.log"; return 1; }
    [ "$(box systemctl is-enabled tagrouter)" = enabled ]
    until_true 30 active || { echo "tagrouter.service is not active after the install"; return 1; }
    box id tagrouter
}

check_security() {
    box systemd-analyze security tagrouter --no-pager >"$work/security.txt" 2>&1 || true
    local exposure
    exposure=$(sed -n 's/.*Overall exposure level for tagrouter.service: \([0-9.]*\).*/\1/p' "$work/security.txt")
    echo "systemd-analyze security tagrouter: $exposure"
    [ -n "$exposure" ] || { cat "$work/security.txt"; return 1; }
    # Issue 30's bound (docs/packaging.md "The system unit's sandbox").
    awk -v e="$exposure" 'BEGIN { exit !(e <= 1.5) }' || { grep '✗' "$work/security.txt" | head -n 30; return 1; }
}

# The fixture: the simulator as a unit of its own before tagrouter.service, the packaged config pointed at
# it (as a user sets `device:`), a drop-in that admits the simulator's pseudo-terminal, a member of group
# tagrouter.
setup_fixture() {
    box install -d -o tagrouter -g tagrouter /srv/sim
    cat >"$root/etc/systemd/system/tagrouter-sim.service" <<'UNIT'
[Unit]
Description=boot test: the PN532 simulator as the service's reader
Before=tagrouter.service
[Service]
User=tagrouter
ExecStart=/usr/bin/tagrouter simulate --link /srv/sim/pn532 --control /srv/sim/pn532.sock
ExecStartPost=/bin/sh -c 'until [ -S /srv/sim/pn532.sock ]; do sleep 0.1; done'
TimeoutStartSec=30
[Install]
WantedBy=multi-user.target
UNIT
    fixture "tagrouter-sim.service: tagrouter simulate --link /srv/sim/pn532 as user tagrouter, started before tagrouter.service"
    mkdir -p "$root/etc/systemd/system/tagrouter.service.d"
    printf '[Service]\n# the simulator is a pseudo-terminal (/dev/pts/N), which the shipped DeviceAllow= list does not admit\nDeviceAllow=char-pts rw\n' \
        >"$root/etc/systemd/system/tagrouter.service.d/test-pty.conf"
    fixture "tagrouter.service.d/test-pty.conf: DeviceAllow=char-pts rw (the simulator's pseudo-terminal)"
    sed -i 's|device: auto |device: pn532_uart:/srv/sim/pn532 |' "$root/etc/tagrouter/tagrouter.yaml"
    grep -q 'device: pn532_uart:/srv/sim/pn532' "$root/etc/tagrouter/tagrouter.yaml"
    box systemctl enable -q tagrouter-sim.service
    box useradd --create-home --groups tagrouter alice
    fixture "user alice, a member of group tagrouter"
}

check_active_after_boot() {
    active
    [ "$(property Type)" = notify ]
    # Type=notify: active means READY=1 came. STATUS= is the daemon's line.
    until_true 30 status_says "^1 reader connected" || { echo "StatusText: $(property StatusText)"; return 1; }
    echo "Status: $(property StatusText)"
    # PrivateUsers=yes: the daemon runs in a user namespace of its own, and keeps the groups that open the readers.
    local pid group
    pid=$(main_pid)
    [ "$(box readlink "/proc/$pid/ns/user")" != "$(box readlink /proc/1/ns/user)" ] || { echo "the daemon shares the system's user namespace"; return 1; }
    box grep '^Groups:' "/proc/$pid/status"
    for group in plugdev dialout; do
        box grep -q "^Groups:.*\b$(box getent group "$group" | cut -d: -f3)\b" "/proc/$pid/status" || { echo "the daemon lacks group $group"; return 1; }
    done
}
# status_says PATTERN — the daemon's status line matches PATTERN (anchor a count: '1 of 2 readers connected' holds '2 readers connected').
status_says() { property StatusText | grep -q -- "$1"; }

check_one_line_per_tap() {
    follow
    place 04a224b2c35e80 a
    wait_journal "tap on reader: ntag215 04a224b2c35e80 https://example.com/a → log-every-tap"
    # The removal is routed too; `events` shows when, so the journal is complete for this tap after it.
    in_background events-removed root tagrouter events --kind tag.removed
    until_true 10 grep -q . "$work/events-removed.txt" || true
    lift
    until_true 20 grep -q 'tag.removed 04a224b2c35e80' "$work/events-removed.txt" || { cat "$work/events-removed.txt"; return 1; }
    end_background events-removed
    sleep 1 # the last line of the removal, if any, reaches the follower
    local lines
    lines=$(grep -c 04a224b2c35e80 "$journal" || true)
    grep 04a224b2c35e80 "$journal"
    [ "$lines" = 1 ] || { echo "expected one journal line for the tap, found $lines"; return 1; }
}

check_status_events() {
    local who
    follow
    for who in root alice; do
        as "$who" tagrouter status >"$work/status-$who.txt" 2>&1 || { cat "$work/status-$who.txt"; return 1; }
        grep -q 'reader' "$work/status-$who.txt"
        in_background "events-$who" "$who" tagrouter events
        until_true 10 grep -q . "$work/events-$who.txt" || true
        tap "04c0ffee00000${#who}" "events-$who"
        until_true 20 grep -q "tag.arrived 04c0ffee00000${#who}" "$work/events-$who.txt" ||
            { echo "tagrouter events as $who:"; cat "$work/events-$who.txt"; return 1; }
        end_background "events-$who"
        echo "$who: status and events found the daemon"
    done
}

check_tags_learn() {
    local who name uid
    for who in root alice; do
        name="learnt-by-$who" uid="04abcdef0000${#who}1"
        follow
        as "$who" timeout 40 tagrouter tags learn --name "$name" --timeout 30 >"$work/learn-$who.txt" 2>&1 &
        local learner=$!
        until_true 20 grep -qi 'place a tag' "$work/learn-$who.txt" || { echo "tags learn as $who:"; cat "$work/learn-$who.txt"; return 1; }
        place "$uid" learn
        local status=0
        wait "$learner" || status=$?
        lift
        cat "$work/learn-$who.txt"
        # Both found the daemon: it read the tag for them, and wrote the name into the service's folder, which
        # only its user and root may write (docs/guide/service.md "Names").
        grep -q "Tag: $uid" "$work/learn-$who.txt" || { echo "tags learn as $who did not read the tag through the daemon"; return 1; }
        [ "$status" = 0 ] || { echo "tags learn as $who: exit $status"; return 1; }
        grep -q "added '$name' ($uid) to /var/lib/tagrouter/tags.yaml" "$work/learn-$who.txt" || { echo "tags learn as $who named nothing"; return 1; }
        # The learnt tag was lifted a moment ago. Placed again within the reader's exit_delay of when it was last
        # seen, it would still be the same presence, which a job took: no arrival. Its end shows nothing (it was
        # not reported), but another tag placed after it and lifted is reported removed exit_delay after that
        # one was last seen, which is later: then the learnt tag's presence has ended too.
        in_background "removed-$who" root tagrouter events --kind tag.removed
        until_true 10 grep -q . "$work/removed-$who.txt" || true
        tap "04abcdef0000${#who}2" between || return 1
        until_true 20 grep -q "tag.removed 04abcdef0000${#who}2" "$work/removed-$who.txt" || { cat "$work/removed-$who.txt"; return 1; }
        end_background "removed-$who"
        follow
        tap "$uid" named
        journal_has "'$name'" || { echo "the tap after learning does not carry the name '$name'"; cat "$journal"; return 1; }
    done
    box ls -l /var/lib/tagrouter/tags.yaml
    [ "$(box stat -c %U:%G /var/lib/tagrouter/tags.yaml)" = tagrouter:tagrouter ]
}

check_reload() {
    local config=/etc/tagrouter/tagrouter.yaml
    cp "$root$config" "$work/config.good"
    follow
    printf '  - name: boot-test-extra\n    match:\n      event: tag.arrived\n    actions: []\n' >>"$root$config"
    box systemctl reload tagrouter
    until_true 30 status_says "$(routes_expected "$work/config.good" 1)" || { echo "StatusText: $(property StatusText)"; return 1; }
    # A broken config: refused with its place, the old one keeps running.
    printf 'routes: [\n' >"$root$config"
    box systemctl reload tagrouter
    wait_journal "reload rejected; the running config stays"
    until_true 10 status_says "rejected at $config:" || { echo "StatusText: $(property StatusText)"; return 1; }
    echo "refused: $(grep 'reload rejected' "$journal" | head -n 1)"
    echo "Status: $(property StatusText)"
    active
    tap 04a1b2c3d4e5f6 after-broken-reload
    cp "$work/config.good" "$root$config"
    box systemctl reload tagrouter
    until_true 30 status_says "$(routes_expected "$work/config.good" 0)" || { echo "StatusText: $(property StatusText)"; return 1; }
}
# routes_expected CONFIG EXTRA — "N routes" the status line says for CONFIG's routes plus EXTRA.
routes_expected() { echo "$(($(grep -c '^  - name:' "$1") - 1 + $2)) route"; }

check_restart_stop() {
    local before after
    before=$(main_pid)
    box systemctl restart tagrouter
    after=$(main_pid)
    active
    [ "$before" != "$after" ] || { echo "restart kept pid $before"; return 1; }
    box systemctl stop tagrouter
    # A stop that ran into TimeoutStopSec ends with Result=timeout and a SIGKILL.
    [ "$(property Result)" = success ] || { echo "stop: Result=$(property Result)"; return 1; }
    echo "stopped: Result=success, TimeoutStopSec=$(property TimeoutStopUSec)"
    box systemctl start tagrouter
    active
}

check_crash_restarts() {
    local restarts pid
    restarts=$(property NRestarts)
    pid=$(main_pid)
    box kill -SEGV "$pid"
    until_true 60 restarted_since "$restarts" || { echo "not restarted after SIGSEGV"; return 1; }
    echo "restarted after SIGSEGV: NRestarts=$(property NRestarts), pid $pid → $(property MainPID)"
}

check_watchdog() {
    local dropin=$root/etc/systemd/system/tagrouter.service.d/test-watchdog.conf restarts pid
    printf '[Service]\nWatchdogSec=4\nTimeoutAbortSec=10\n' >"$dropin"
    fixture "tagrouter.service.d/test-watchdog.conf: WatchdogSec=4 (shipped: 30 s), for this check only"
    box systemctl daemon-reload
    box systemctl restart tagrouter
    until_true 30 active
    follow
    restarts=$(property NRestarts)
    pid=$(main_pid)
    box kill -STOP "$pid" # a hang: no thread runs, no WATCHDOG=1
    until_true 60 restarted_since "$restarts" || { echo "a stopped daemon was not restarted by the watchdog"; return 1; }
    journal_has "Watchdog timeout" || { echo "no 'Watchdog timeout' from systemd"; return 1; }
    grep "Watchdog timeout" "$journal" | head -n 1
    rm -f "$dropin"
    box systemctl daemon-reload
    box systemctl restart tagrouter
    until_true 30 active
}

# The journal of a healthy boot and a hundred taps: no warning or error line (systemd's own included), nothing
# from the Swift runtime, and one line per tap.
check_quiet_journal() {
    follow
    local i uid
    for i in $(seq 100); do
        uid=$(printf '040000005e%04x' "$i")
        tap "$uid" "tap$i"
    done
    box timeout 20 tagrouter status >/dev/null || true # every tap routed before the journal is judged
    sleep 1
    box journalctl -q -b -u tagrouter -p warning --no-pager >"$work/warnings.txt" || true
    box journalctl -q -b -u tagrouter --no-pager >"$work/boot-journal.txt" || true
    local taps
    taps=$(grep -c 'tap on reader: ntag215 040000005e' "$journal" || true)
    echo "journal of the boot: $(wc -l <"$work/boot-journal.txt") lines, $taps of them the hundred taps; the others:"
    grep -v 'tap on reader: ntag215 040000005e' "$work/boot-journal.txt" | sed 's/^/  /'
    [ "$taps" = 100 ] || { echo "expected 100 tap lines, one per tap"; return 1; }
    [ "$(grep -c 040000005e "$journal")" = 100 ] || { echo "more than one line per tap:"; grep 040000005e "$journal" | grep -v 'tap on' | head; return 1; }
    [ ! -s "$work/warnings.txt" ] || { echo "warnings and errors (journalctl -p warning):"; cat "$work/warnings.txt"; return 1; }
    ! grep 'Failed to set thread priority' "$work/boot-journal.txt"
}

# The package made on Debian 12 (`make deb`) carries swift.org's Swift runtime, whose Dispatch logs
# "Failed to set thread priority for worker thread" when a worker thread's setpriority() is refused;
# Debian's 6.0.3 runtime tries as often but silently. So the swift.org build (.build/release/tagrouter, as
# `make test` builds it) takes the package's place for this check: under the unit, its start and a tap
# leave no warning or error either.
check_swiftorg_runtime() {
    local binary=/usr/bin/tagrouter cursor status=0
    cp "$root$binary" "$work/tagrouter.packaged"
    install -m 755 "$release" "$root$binary"
    fixture "$binary replaced by $release ($("$release" --version | head -n 1), swift.org's runtime) for this check"
    cursor=$(box journalctl -q -n 0 --show-cursor | sed -n 's/^-- cursor: //p')
    follow
    # The package's binary goes back whatever happens here (errexit does not hold on the left of ||).
    {
        box systemctl restart tagrouter &&
            { until_true 30 status_says "^1 reader connected" || { echo "StatusText: $(property StatusText)"; false; }; } &&
            tap 04a224b2c35e81 swiftorg &&
            box grep 'Max nice priority' "/proc/$(main_pid)/limits" >"$work/swiftorg-limits.txt" &&
            box systemctl stop tagrouter
    } || status=$?
    install -m 755 "$work/tagrouter.packaged" "$root$binary"
    box systemctl start tagrouter
    [ "$status" = 0 ]
    box journalctl -q -u tagrouter --after-cursor="$cursor" --no-pager >"$work/swiftorg-journal.txt"
    # errno=1: the unit's syscall filter refused setpriority.
    if grep 'Failed to set thread priority.*errno=1$' "$work/swiftorg-journal.txt"; then return 1; fi
    # errno=13: Dispatch's user-interactive thread asks for nice -4, which LimitNICE=-4 admits — where the
    # container's systemd can raise RLIMIT_NICE. This machine's own sandbox has no CAP_SYS_RESOURCE, so no
    # process here can; said, and accepted only then.
    if grep 'Failed to set thread priority.*errno=13$' "$work/swiftorg-journal.txt"; then
        local unit_limit
        unit_limit=$(property LimitNICE)
        echo "unit: LimitNICE=$unit_limit; the daemon had: $(cat "$work/swiftorg-limits.txt")"
        [ "$unit_limit" = 24 ] || return 1
        grep -q 'Max nice priority *0 *0' "$work/swiftorg-limits.txt" || return 1
        capsh --has-b=cap_sys_resource 2>/dev/null && return 1
        echo "accepted: this machine lacks CAP_SYS_RESOURCE (capsh --has-b=cap_sys_resource fails), so the container's"
        echo "systemd cannot raise RLIMIT_NICE to the unit's 24; on a machine that can, Dispatch gets its nice -4"
        grep -v 'Failed to set thread priority.*errno=13$' "$work/swiftorg-journal.txt" >"$work/swiftorg-rest.txt" || true
        mv "$work/swiftorg-rest.txt" "$work/swiftorg-journal.txt"
    fi
    box journalctl -q -u tagrouter -p warning --after-cursor="$cursor" --no-pager |
        grep -v 'Failed to set thread priority.*errno=13$' >"$work/swiftorg-warnings.txt" || true
    [ ! -s "$work/swiftorg-warnings.txt" ] || { cat "$work/swiftorg-warnings.txt"; return 1; }
}

# Without the drop-in that admits the simulator's pseudo-terminal, the sandbox hides the reader: `doctor`
# (from systemctl show) and the log (the open() that gives EPERM) name the unit as the cause, not the
# hardware. trixie's systemd in this machine's container does not enforce DeviceAllow= (its cgroup v1 device
# controller is read-only there), so when the reader still connects a device cgroup of the host's own
# denying pseudo-terminals stands in for it, named in the output; the simulator is restarted, and the
# daemon's reopen meets EPERM as under the unit.
check_hidden_reader() {
    local dropin=$root/etc/systemd/system/tagrouter.service.d/test-pty.conf
    mv "$dropin" "$work/test-pty.conf"
    box systemctl daemon-reload
    follow
    box systemctl restart tagrouter
    box tagrouter doctor >"$work/doctor.txt" 2>&1 || true
    grep 'tagrouter.service' "$work/doctor.txt"
    grep -q "✗ reader 'reader': tagrouter.service's sandbox does not admit /srv/sim/pn532" "$work/doctor.txt" ||
        { echo "doctor does not name the unit:"; cat "$work/doctor.txt"; return 1; }
    if until_true 10 journal_has "reader.connected"; then
        echo "this container does not enforce DeviceAllow=: the reader connected without the drop-in"
        deny_pseudo_terminals
        box systemctl restart tagrouter-sim.service
    fi
    wait_journal "tagrouter.service's sandbox does not admit /srv/sim/pn532"
    grep "sandbox does not admit" "$journal"
    if journal_has "not found"; then echo "the log blames the hardware"; return 1; fi
    allow_pseudo_terminals
    mv "$work/test-pty.conf" "$dropin"
    box systemctl daemon-reload
    box systemctl restart tagrouter-sim.service tagrouter
    until_true 30 status_says "^1 reader connected"
}
# deny_pseudo_terminals — moves the daemon (seen from here) into a device cgroup of its own that refuses
# char 136 (pseudo-terminals), as the unit's DeviceAllow= does where it is enforced.
deny_pseudo_terminals() {
    local inside pid
    inside=$(main_pid)
    for pid in $(pgrep -x tagrouter); do
        [ "$(readlink "/proc/$pid/ns/pid")" = "$(readlink "/proc/$leader/ns/pid")" ] || continue
        [ "$(awk '/^NSpid:/ { print $NF }' "/proc/$pid/status")" = "$inside" ] || continue
        mkdir -p "$devices_cgroup"
        echo 'c 136:* rwm' >"$devices_cgroup/devices.deny"
        echo "$pid" >"$devices_cgroup/cgroup.procs"
        fixture "the daemon (pid $pid here) moved into $devices_cgroup, which denies char 136:* (pseudo-terminals)"
        return 0
    done
    echo "the daemon's process was not found from here"
    return 1
}
allow_pseudo_terminals() {
    [ -d "$devices_cgroup" ] || return 0
    local pid
    for pid in $(cat "$devices_cgroup/cgroup.procs"); do echo "$pid" >/sys/fs/cgroup/devices/cgroup.procs; done
    rmdir "$devices_cgroup"
}

# PC/SC: pcscd, socket-activated as Debian ships it, with vsmartcard's vpcd reader; the simulator is its card.
check_pcsc() {
    [ "$(box systemctl is-enabled pcscd.socket)" = enabled ]
    start_vpcd
    add_pcsc_reader
    until_true 60 status_says "^2 readers connected" || { echo "StatusText: $(property StatusText)"; return 1; }
    box systemctl is-active pcscd.service
    as tagrouter tagrouter simulate --control /srv/sim/vpcd.sock \
        --request '{"op":"place","type":"ntag215","uid":"04bbccddeeff01","records":[{"uri":"https://example.com/pcsc"}]}' >/dev/null
    wait_journal "tap on card: ntag215 04bbccddeeff01 https://example.com/pcsc" 60
    grep "tap on card" "$journal"
    as tagrouter tagrouter simulate --control /srv/sim/vpcd.sock --request '{"op":"remove"}' >/dev/null
    remove_pcsc_reader
    stop_vpcd
}
# start_vpcd / stop_vpcd — the simulator as the card in pcscd's vpcd reader, a unit of the test's own.
start_vpcd() {
    cat >"$root/etc/systemd/system/tagrouter-vpcd.service" <<'UNIT'
[Unit]
Description=boot test: the simulator as the card in pcscd's vpcd reader
[Service]
User=tagrouter
ExecStart=/usr/bin/tagrouter simulate --vpcd 35963 --control /srv/sim/vpcd.sock
ExecStartPost=/bin/sh -c 'until [ -S /srv/sim/vpcd.sock ]; do sleep 0.1; done'
TimeoutStartSec=30
UNIT
    fixture "tagrouter-vpcd.service: tagrouter simulate --vpcd 35963, the card in pcscd's vpcd reader"
    box systemctl daemon-reload
    box systemctl start tagrouter-vpcd.service
}
stop_vpcd() {
    box systemctl stop tagrouter-vpcd.service
    rm "$root/etc/systemd/system/tagrouter-vpcd.service"
    box systemctl daemon-reload
}
# add_pcsc_reader / remove_pcsc_reader — a reader `card` (device: pcsc:auto) in the config, reloaded.
add_pcsc_reader() {
    local config=/etc/tagrouter/tagrouter.yaml
    cp "$root$config" "$work/config.before-pcsc"
    sed -i 's|^readers:|readers:\n  - name: card\n    device: pcsc:auto|' "$root$config"
    follow
    box systemctl reload tagrouter
}
remove_pcsc_reader() {
    cp "$work/config.before-pcsc" "$root/etc/tagrouter/tagrouter.yaml"
    box systemctl reload tagrouter
}

# Debian's pcscd asks polkit whether a client may use it, and refuses a system user unless a rule says so; the
# package's rule lets user tagrouter in. Without it, `devices` (as tagrouter) and the daemon name pcscd's polkit
# refusal and the rule, not an unreachable pcscd; with it back, the reader arrives.
check_pcsc_refused() {
    local rule=/usr/share/polkit-1/rules.d/60-tagrouter-pcscd.rules cursor
    start_vpcd
    # Moved within the container's tree both ways: a rename, so polkitd sees the whole file appear again (a copy
    # from outside the overlay showed it an empty file first, and once it stayed refused for over a minute).
    mv "$root$rule" "$root/var/tmp/polkit.rules"
    fixture "$rule moved away for this check (put back at its end)"
    # polkitd reloads its rules when the folder changes: `devices` as tagrouter is refused once it has.
    until_true 60 devices_say_refused || { echo "tagrouter devices (as tagrouter):"; cat "$work/devices.txt"; return 1; }
    grep pcscd "$work/devices.txt"
    cursor=$(box journalctl -q -n 0 --show-cursor | sed -n 's/^-- cursor: //p')
    add_pcsc_reader
    until_true 60 daemon_says_refused "$cursor" || { echo "the daemon's log since the reload:"; grep -E 'MESSAGE=|DETAIL=' "$work/refused.txt" | tail -n 20; return 1; }
    grep -m 1 'DETAIL=.*pcscd refused' "$work/refused.txt"
    box journalctl -q -u pcscd --after-cursor="$cursor" --no-pager | grep -m 1 'Rejected unauthorized PC/SC client'
    mv "$root/var/tmp/polkit.rules" "$root$rule"
    until_true 60 status_says "^2 readers connected" || { echo "StatusText: $(property StatusText)"; return 1; }
    echo "with the rule back: $(property StatusText)"
    remove_pcsc_reader
    stop_vpcd
}
devices_say_refused() {
    as tagrouter tagrouter devices >"$work/devices.txt" 2>&1 || true
    grep -q "pcscd refused user 'tagrouter' (uid [0-9]*) through polkit (action org.debian.pcsc-lite.access_pcsc.*60-tagrouter-pcscd.rules" "$work/devices.txt"
}
# daemon_says_refused CURSOR — the reader's warning since CURSOR names the refusal (its DETAIL= field).
daemon_says_refused() {
    box journalctl -q -u tagrouter --after-cursor="$1" -o verbose --no-pager >"$work/refused.txt" 2>&1 || true
    grep -q "DETAIL=SCardEstablishContext: .*pcscd refused user 'tagrouter' (uid [0-9]*) through polkit.*/usr/share/polkit-1/rules.d/60-tagrouter-pcscd.rules" "$work/refused.txt"
}

# The host sound with the drop-in docs/feedback.md gives, played by aplay into ALSA's null device.
check_sound() {
    local dropins=$root/etc/systemd/system/tagrouter.service.d config=/etc/tagrouter/tagrouter.yaml
    printf '[Service]\nSupplementaryGroups=audio\nDeviceAllow=char-alsa rw\n' >"$dropins/sound.conf"
    echo "     drop-in: tagrouter.service.d/sound.conf, as docs/feedback.md gives it"
    printf '[Service]\nExecStart=\nExecStart=/usr/bin/tagrouter run --log-level debug\n' >"$dropins/test-debug.conf"
    fixture "tagrouter.service.d/test-debug.conf: run --log-level debug, for the player's lines"
    cp "$root$config" "$work/config.before-sound"
    sed -i 's|^\(    device: pn532_uart:/srv/sim/pn532.*\)$|\1\n    feedback:\n      sound:\n        player: aplay\n        device: "null"\n        arrival: /usr/share/sounds/alsa/Noise.wav|' "$root$config"
    grep -A5 'feedback:' "$root$config"
    box systemctl daemon-reload
    follow
    box systemctl restart tagrouter
    until_true 30 status_says "^1 reader connected" || { echo "StatusText: $(property StatusText)"; return 1; }
    tap 04500000000001 sound
    wait_journal "sound played"
    grep "sound " "$journal"
    if journal_has "sound player failed\|sound not played"; then return 1; fi
    rm "$dropins/sound.conf" "$dropins/test-debug.conf"
    cp "$work/config.before-sound" "$root$config"
    box systemctl daemon-reload
    box systemctl restart tagrouter
    until_true 30 active
}

# apt purge, after the test's own additions are taken away: no file, unit, user process or folder of
# tagrouter is left (the system user stays, as Debian does with system users).
check_purge() {
    box systemctl disable -q --now tagrouter-sim.service
    rm -rf "$root/etc/systemd/system/tagrouter-sim.service" "$root/etc/systemd/system/tagrouter.service.d" "$root/srv/sim" "$root/root/tagrouter.deb"
    box systemctl daemon-reload
    box env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q tagrouter >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; return 1; }
    box find / -xdev \( -path /proc -o -path /sys -o -path /home \) -prune -o -name '*tagrouter*' -print >"$work/left.txt" || true
    [ ! -s "$work/left.txt" ] || { echo "left behind:"; cat "$work/left.txt"; return 1; }
    [ -z "$(box systemctl list-unit-files --no-legend 'tagrouter*')" ] || { box systemctl list-unit-files 'tagrouter*'; return 1; }
    ! box pgrep -u tagrouter
    echo "nothing of tagrouter is left; the system user stays: $(box getent passwd tagrouter)"
}

# --- the run -------------------------------------------------------------------------------------

echo "== booting $tree (package $(basename "$package"))"
step "the container boots (systemd $(chroot "$root" dpkg-query -W -f '${Version}' systemd))" boot || exit 1
check "apt install: the service is enabled and active" check_install
check "systemd-analyze security tagrouter ≤ 1.5 (the unit as shipped)" check_security
setup_fixture
step "reboot: the container boots again" reboot_container || exit 1
check "active after boot; READY and STATUS= reach systemd; its own user namespace, groups kept" check_active_after_boot
check "a healthy boot and a hundred taps: no warning or error, one line per tap" check_quiet_journal
check "a tap is one line in the journal, the documented one" check_one_line_per_tap
check "swift.org's runtime under the unit: no 'Failed to set thread priority', no warning" check_swiftorg_runtime
check "status and events find the daemon without flags (root, a member of group tagrouter)" check_status_events
check "tags learn finds the daemon without flags and names the tag (root, a member of group tagrouter)" check_tags_learn
check "systemctl reload: a good config, a broken one refused" check_reload
check "restart; stop within TimeoutStopSec" check_restart_stop
check "a crash (SIGSEGV) is restarted by Restart=on-failure" check_crash_restarts
check "a hang is caught by WatchdogSec" check_watchdog
check "a reader the sandbox hides: the log and doctor name the unit" check_hidden_reader
check "PC/SC: socket-activated pcscd with the vpcd card" check_pcsc
check "PC/SC: pcscd's polkit refusal of the service's user is named, with the package's rule" check_pcsc_refused
check "host sound: the documented drop-in, aplay into ALSA's null device" check_sound
check "apt purge leaves nothing behind" check_purge
poweroff

echo
echo "== boot test: $((${#results[@]} - failed)) of ${#results[@]} checks passed"
echo "   package and tree ready in $((prepared - started)) s; the checks took $((SECONDS - prepared)) s; in all $((SECONDS - started)) s"
[ "$failed" = 0 ]
