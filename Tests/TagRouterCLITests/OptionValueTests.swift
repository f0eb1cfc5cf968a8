@testable import TagRouterCLI
import TagCore
import TagRouter
import Testing

/// Option values read from the command line and written back, and what a bad one gets.
@Suite struct OptionValueTests {
    static func parse<Value>(_ option: ValueOption<Value>, _ arguments: [String]) throws(CLIError) -> Value {
        var parsed = try Arguments(arguments, accepting: [option])
        return try parsed.value(of: option)
    }

    static func usageError<Value>(_ option: ValueOption<Value>, _ arguments: [String]) -> String? {
        do {
            _ = try parse(option, arguments)
            return nil
        } catch {
            guard case .usage(let message) = error else { return "not a usage error: \(error)" }
            return message
        }
    }

    static let timeout = ValueOption("--timeout", default: Duration.seconds(30), help: "how long")
    static let polling = ValueOption<ReaderConfig.Polling?>("--polling", help: "how")
    static let devices = ValueOption<[String]>("--device", placeholder: "CONNSTRING", help: "which")

    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("30s", .seconds(30)), ("1m30s", .seconds(90)), ("0", .zero),
        // As these options took before: a bare number is seconds.
        ("0.5", .milliseconds(500)), ("10", .seconds(10)), ("600", .seconds(600)),
    ])
    func aDurationReadsTheConfigsWayAndBareSeconds(text: String, expected: Duration) throws {
        #expect(try Self.parse(Self.timeout, ["--timeout", text]) == expected)
        #expect(try Self.parse(Self.timeout, ["--timeout=\(text)"]) == expected)
    }

    @Test(arguments: [Duration.zero, .milliseconds(500), .seconds(30), .seconds(90), .seconds(3600), .milliseconds(1250), .microseconds(500), .seconds(7322)])
    func aDurationIsWrittenAsTheConfigWritesItAndReadsBack(duration: Duration) {
        #expect(Duration(configText: duration.configText) == duration, "\(duration.configText)")
        #expect(Duration(argument: duration.argumentText) == duration)
    }

    @Test func durationsAreWrittenInTheirShortestForm() {
        #expect(Duration.milliseconds(500).configText == "500ms")
        #expect(Duration.seconds(90).configText == "1m30s")
        #expect(Duration.seconds(3600).configText == "1h")
        #expect(Duration.zero.configText == "0")
    }

    @Test func aLeftOutOptionGivesItsDefault() throws {
        #expect(try Self.parse(Self.timeout, []) == .seconds(30))
        #expect(try Self.parse(Self.polling, []) == nil)
        #expect(try Self.parse(Self.devices, []) == [])
        #expect(try Self.parse(Self.devices, ["--device", "a", "--device=b"]) == ["a", "b"])
    }

    @Test func aBadValueIsNamedWithItsOptionAndWhatItTakes() {
        #expect(Self.usageError(Self.timeout, ["--timeout", "soon"]) == "--timeout takes a duration such as 500ms, 30s or 1m (a bare number is seconds), not 'soon'")
        #expect(Self.usageError(Self.timeout, ["--timeout", "-1"]) == "--timeout takes a duration such as 500ms, 30s or 1m (a bare number is seconds), not '-1'")
        #expect(Self.usageError(Self.polling, ["--polling", "sometimes"]) == "--polling takes auto-poll, list-passive or fast, not 'sometimes'")
        #expect(Self.usageError(Self.polling, ["--polling", "fsat"]) == "--polling takes auto-poll, list-passive or fast, not 'fsat' (did you mean fast?)")
        #expect(Self.usageError(Self.timeout, ["--timeout"]) == "--timeout needs a value")
        // Too long for the clock: refused, not a crash on the conversion.
        #expect(Self.usageError(Self.timeout, ["--timeout", "1e300"]) == "--timeout takes a duration such as 500ms, 30s or 1m (a bare number is seconds), not '1e300'")
        #expect(Self.usageError(Self.timeout, ["--timeout", "99999999999999999999h"]) != nil)
    }

    @Test func anOptionGivenTwiceWithDifferentValuesIsRefused() throws {
        #expect(Self.usageError(Self.timeout, ["--timeout", "1s", "--timeout", "2s"]) == "--timeout is given more than once ('1s', then '2s')")
        #expect(try Self.parse(Self.timeout, ["--timeout", "1s", "--timeout", "1s"]) == .seconds(1))
    }
}
