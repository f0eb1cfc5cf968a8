@preconcurrency import Glibc
import Systemd

// systemd-probe notify | journal: calls the Systemd module the way the daemon does,
// so SystemdTests can run it with a NOTIFY_SOCKET (or a journal socket) of their own.
let notifier = SystemdNotifier()
do {
    switch CommandLine.arguments.dropFirst().first {
    case "notify":
        print("listening: \(notifier.isListening)")
        print("watchdog interval: \(notifier.watchdogInterval.map { "\($0)" } ?? "none")")
        try notifier.ready(status: "starting\nREADY=1")
        try notifier.status("2 readers connected · 6 routes")
        try notifier.watchdog()
        try notifier.reloading()
        try notifier.stopping()
    case "journal":
        print("stderr is the journal: \(SystemdJournal.stderrIsJournal())")
        try SystemdJournal.send(
            "tag 04a224b2c35e80 on front-door: routes music", priority: .info,
            fields: [("reader", "front-door"), ("tag_uid", "04a224b2c35e80"), ("note", "two\nlines")])
    default:
        print("usage: systemd-probe notify|journal")
        exit(64)
    }
} catch {
    fputs("error: \(error)\n", stderr)
    exit(1)
}
