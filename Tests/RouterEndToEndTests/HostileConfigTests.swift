import DaemonTesting
import Foundation
import Testing

/// Config files built to exhaust memory or the stack: `check-config` refuses each
/// quickly with the place it crossed a limit (an 11.7 GB alias bomb answers within
/// the run's deadline, so memory stayed bounded), and a reload with one
/// keeps the running config.
@Suite struct HostileConfigTests {
    /// "Billion laughs": nine levels of nine aliases to the level before.
    static let aliasBomb = (["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"] + zip("bcdefghi", "abcdefgh").map { name, previous in
        "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ", ") + "]"
    }).joined(separator: "\n") + "\n"

    static let cases: [(name: String, text: String, problem: String)] = [
        ("alias-bomb", aliasBomb, "6:8: aliases expand the config to more than 100000 values; a config this large is a mistake or an alias bomb"),
        ("deep-sequences", String(repeating: "[", count: 40_000) + String(repeating: "]", count: 40_000), "1:65: sequences and mappings nest more than 64 deep"),
        ("deep-mappings", String(repeating: "{a: ", count: 40_000) + "1" + String(repeating: "}", count: 40_000), "1:257: sequences and mappings nest more than 64 deep"),
        ("many-aliases", "a: &a x\nb: [" + Array(repeating: "*a", count: 1_001).joined(separator: ",") + "]\n",
         "2:3005: more than 1000 aliases (*name); a config needs a few, this looks like an alias bomb"),
        ("long-string-aliases", "a: &a \"" + String(repeating: "x", count: 900_000) + "\"\nroutes: [" + Array(repeating: "*a", count: 999).joined(separator: ", ") + "]\n",
         "2:22: aliases expand the config to more than 4194304 bytes (4 MiB) of text; a config this large is a mistake or an alias bomb"),
        ("too-large", String(repeating: "# " + String(repeating: "x", count: 97) + "\n", count: 10_486),
         "1:1: the config is larger than 1048576 bytes (1 MiB), the most that is read"),
    ]

    @Test(arguments: cases.map(\.name))
    func checkConfigRefusesAtTheLimit(_ name: String) async throws {
        let hostile = try #require(Self.cases.first { $0.name == name })
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("tagrouter.yaml", hostile.text)
        let daemon = try TagrouterProcess(["check-config", file], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus(timeout: .seconds(10)) == 65)
        #expect(daemon.stderr == ["\(file):\(hostile.problem)", "error: \(file): the config has 1 problem"])
    }

    /// A value repeated by aliases inside the limits makes a problem per use: the
    /// first 50 are printed, each cut to a line's length, then how many more.
    @Test func repeatedProblemsAreCut() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let text = "a: &a \"" + String(repeating: "x", count: 2_000) + "\"\nroutes: [" + Array(repeating: "*a", count: 999).joined(separator: ", ") + "]\n"
        let file = try scratch.write("tagrouter.yaml", text)
        let daemon = try TagrouterProcess(["check-config", file], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 65)
        #expect(daemon.stderr.count == 52)
        #expect(daemon.stderr.dropLast(2).allSatisfy { $0.hasPrefix(file + ":") && $0.count < 700 })
        #expect(daemon.stderr.suffix(2) == ["… and 950 more", "error: \(file): the config has 1000 problems"])
    }

    @Test func configsJustInsideTheLimitsLoad() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let nested = String(repeating: "[", count: 62) + String(repeating: "]", count: 62)  // 64 deep with the two mappings
        let aliases = Array(repeating: "*t", count: 1_000).joined(separator: ", ")
        let file = try scratch.write("tagrouter.yaml", """
            x-nested: &t {deep: \(nested)}
            x-aliases: [\(aliases)]
            routes: [{name: a, actions: [log]}]
            """)
        let daemon = try TagrouterProcess(["check-config", file], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 65)
        // Only the spec objects (to the two extra keys), not the limits.
        #expect(daemon.stderr.map { $0.prefix(while: { $0 != ";" }) } == [
            "\(file):1:1: unknown key 'x-nested'", "\(file):2:1: unknown key 'x-aliases'", "error: \(file): the config has 2 problems",
        ])
    }

    /// One daemon (in process), reloaded with each hostile file in turn: every reload is refused
    /// at the limit, and the route it started with keeps handling taps.
    @Test func reloadsWithHostileConfigsAreRejectedAndTheRunningOneStays() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let config = "routes: [{name: a, actions: [{log: \"A {{tag.uid}}\"}]}]\nstate_dir: \(scratch.path)/state\n"
        let daemon = try TestDaemon(configFile: try scratch.write("tagrouter.yaml", config))
        try await daemon.send(arrival(uid: "00"))
        var expected = ["A 00"]
        #expect(try await daemon.output(count: 1) == expected, "running before the first reload")
        for (number, hostile) in Self.cases.enumerated() {
            _ = try scratch.write("tagrouter.yaml", hostile.text)
            let rejected = try #require(DaemonRoutingTests.problems(await daemon.reload()), "\(hostile.name) was loaded")
            #expect(rejected.contains { $0.contains("tagrouter.yaml:\(hostile.problem)") }, "\(hostile.name): \(rejected)")
            let uid = String(format: "%02x", number + 1)
            try await daemon.send(arrival(uid: uid))
            expected.append("A \(uid.uppercased())")
            #expect(try await daemon.output(count: expected.count) == expected)
        }
        try await daemon.stop()
    }
}
