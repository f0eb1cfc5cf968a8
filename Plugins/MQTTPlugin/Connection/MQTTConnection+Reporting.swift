import FoundationEssentials
import Glibc
import Lifecycle
import OrderedJSON
import Synchronization
import SystemKit

/// What the connection says about itself: its status to the watchers, a problem logged once (not on every retry),
/// a likely takeover of its client id.
extension MQTTConnection {
    /// Records and broadcasts a status; logs a problem once, not on every retry.
    func report(_ status: Status, problem: String?) {
        let newProblem = state.withLock { state -> String? in
            if let problem { state.lastProblem = problem }
            if status == .connected { state.loggedProblem = nil }
            if state.status != status {
                state.status = status
                state.statusSince = Date()
                for watcher in state.watchers.values { watcher.yield(status) }
            }
            guard let problem, problem != state.loggedProblem else { return nil }
            state.loggedProblem = problem
            return problem
        }
        if let newProblem {
            let message: String
            switch status {
            case .disconnected(.unreachable):
                message = "no MQTT broker on \(settings.broker); publishing resumes when one answers"
            case .disconnected(.takenOver):
                message = "another client took over client id '\(settings.clientID)' on the MQTT broker \(settings.broker); reconnecting"
            case .disconnected(.consumerStalled):
                message = "nothing was read from the MQTT broker \(settings.broker) while the daemon took none of the messages waiting; reconnecting"
            case .disconnected(.connectionLost):
                message = "the MQTT broker \(settings.broker) closed the connection of client id '\(settings.clientID)'; reconnecting"
            default:
                message = "MQTT broker \(settings.broker) not connected; publishing resumes when it accepts the connection"
            }
            Log.warning(message, JSONObject(["broker": .string(settings.broker), "error": .string(newProblem)]))
        }
    }

    /// The broker closed the connection before and accepted this very next attempt: it
    /// stayed up (or restarted within the backoff), so another client most likely
    /// connected with the same client id. MQTT 3.1.1 cannot say which; mosquitto 2.0
    /// does not send MQTT 5's reason 0x8E either.
    func reportLikelyTakeover() {
        takeoverCount.add(1, ordering: .relaxed)
        let problem = MQTTError.takenOver(broker: settings.broker, clientID: settings.clientID).description
        state.withLock { $0.lastProblem = problem }
        Log.warning(
            "another client took over client id '\(settings.clientID)' on the MQTT broker \(settings.broker), or the broker restarted: "
                + "it closed the connection and accepted the next attempt at once",
            JSONObject(["broker": .string(settings.broker), "client_id": .string(settings.clientID), "error": .string(problem)]))
    }
}
