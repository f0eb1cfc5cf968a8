import OrderedJSON

/// What the simulator has seen and done since it started: for tests, for the
/// control socket's `counters` request, and for benchmarks.
public struct PN532Counters: Sendable, Equatable {
    /// Bytes read from and written to the pseudo-terminal.
    public var bytesIn = 0, bytesOut = 0
    /// Commands received, by the manual's name (`InListPassiveTarget`, `0x8C` for unknown codes).
    public var commands: [String: Int] = [:]
    /// ACK frames sent to the host (one per well-formed command).
    public var acksSent = 0
    /// NACK frames sent for frames with a bad length or data checksum.
    public var nacksSent = 0
    /// NACK frames the host sent to have the last response repeated.
    public var nacksReceived = 0
    /// Frames that failed a checksum or had no D4 identifier.
    public var malformedFrames = 0
    /// Application-level error frames sent (unknown command, bad parameters).
    public var syntaxErrors = 0
    /// Running commands aborted by an ACK or by a new command from the host.
    public var abortedCommands = 0
    /// Exchanges with tags (InDataExchange, InCommunicateThru) and how many timed out.
    public var tagExchanges = 0, tagTimeouts = 0
    /// Activations that found a tag (InListPassiveTarget, InAutoPoll, answered with targets).
    public var activations = 0

    public init() {}

    /// As the control socket's `counters` answer gives them: members (and command names) in sorted order.
    public var json: JSONValue {
        var commandsObject = JSONObject(reservingCapacity: commands.count)
        for (name, count) in commands.sorted(by: { $0.key < $1.key }) { commandsObject[name] = .int(Int64(count)) }
        return .object(JSONObject([
            "abortedCommands": .int(Int64(abortedCommands)), "acksSent": .int(Int64(acksSent)), "activations": .int(Int64(activations)),
            "bytesIn": .int(Int64(bytesIn)), "bytesOut": .int(Int64(bytesOut)), "commands": .object(commandsObject),
            "malformedFrames": .int(Int64(malformedFrames)), "nacksReceived": .int(Int64(nacksReceived)), "nacksSent": .int(Int64(nacksSent)),
            "syntaxErrors": .int(Int64(syntaxErrors)), "tagExchanges": .int(Int64(tagExchanges)), "tagTimeouts": .int(Int64(tagTimeouts)),
        ]))
    }
}
