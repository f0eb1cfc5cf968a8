import FoundationEssentials
import SystemKit

extension DaemonStatus {
    /// The daemon in one line for `systemctl status`:
    /// "2 readers connected · 6 routes · last tap 14:02:11 front-door", then the first problem, if any.
    /// Times are local wall-clock time (`timeZone`).
    public func summary(timeZone: TimeZone = .current) -> String {
        var parts: [String] = []
        let connected = readers.filter { $0.state == .connected }.count
        switch readers.count {
        case 0: break
        case connected: parts.append("\(connected) reader\(connected == 1 ? "" : "s") connected")
        default: parts.append("\(connected) of \(readers.count) readers connected")
        }
        parts.append("\(routes.count) route\(routes.count == 1 ? "" : "s")")
        let taps = readers.compactMap { reader in reader.lastTag.map { (reader: reader.name, time: $0.time) } }
        if let last = taps.max(by: { $0.time < $1.time }) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let clock = calendar.dateComponents([.hour, .minute, .second], from: last.time)
            let time = [clock.hour, clock.minute, clock.second].map { String($0 ?? 0).leftPadded(toLength: 2, with: "0") }
            parts.append("last tap \(time.joined(separator: ":")) \(last.reader)")
        }
        let problems = problems
        if let first = problems.first {
            parts.append(first + (problems.count > 1 ? " (+\(problems.count - 1) more: tagrouter status)" : ""))
        }
        return parts.joined(separator: " · ")
    }
}
