@preconcurrency import Glibc
import Foundation
import NDEF
import OrderedJSON
import Testing
import TagKit
@testable import PN532Sim

/// The control protocol of `tagrouter simulate`, in process and over a real Unix socket.
@Suite("Simulator control protocol")
struct ControlTests {
    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// The member names of an object, in their order.
    static func keys(_ value: JSONValue?) -> [String]? {
        guard case .object(let object)? = value else { return nil }
        return object.keys
    }

    /// `sim`'s control protocol on a fresh socket in the temporary directory.
    static func serve(_ sim: PN532Simulator) throws -> ControlSocketServer {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pn532-control-\(getpid())-\(UInt16.random(in: 0...UInt16.max)).sock").path
        return try ControlSocketServer(path: path, control: SimulatorControl(simulator: sim))
    }

    @Test("place with records, list, dump, remove, counters")
    func lifecycle() throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let control = SimulatorControl(simulator: sim)
        let placed = control.respond(to: #"{"op":"place","type":"ntag215","uid":"04:A2:24:B2:C3:5E:80","records":[{"uri":"https://example.com/a"},{"text":"hi","lang":"de"}]}"#)
        #expect(placed == #"{"ok":true,"tags":[{"type":"ntag215","uid":"04a224b2c35e80"}]}"#)
        let tag = try #require(sim.tag(uid: [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]))
        let content = try Type2Driver(transport: ModelTransport(tag as! Type2Tag), tagType: "ntag215").read()
        #expect(content.message == NDEFMessage(records: [.uri("https://example.com/a"), .text("hi", locale: "de")]).encoded())

        let dump = try Self.object(control.respond(to: #"{"op":"dump","uid":"04a224b2c35e80"}"#))
        let tags = try #require(dump["tags"] as? [[String: Any]])
        #expect(tags.first?["memory"] as? String == Hex.string(tag.memory))

        #expect(control.respond(to: #"{"op":"remove","uid":"04-A2-24-B2-C3-5E-80"}"#) == #"{"ok":true,"removed":1}"#)
        #expect(control.respond(to: #"{"op":"list"}"#) == #"{"ok":true,"tags":[]}"#)
        let counters = try Self.object(control.respond(to: #"{"op":"counters"}"#))
        #expect((counters["counters"] as? [String: Any])?["tagExchanges"] as? Int == 0)
        // docs/simulator.md: output keys are sorted, at every level (the order JSONEncoder's .sortedKeys gave).
        _ = try RawHost(path: sim.devicePath).exchange([0x02])
        let ordered = try JSONValue.parse(control.respond(to: #"{"op":"counters"}"#))
        #expect(Self.keys(ordered) == ["counters", "ok"])
        #expect(Self.keys(ordered["counters"]) == ["abortedCommands", "acksSent", "activations", "bytesIn", "bytesOut", "commands", "malformedFrames",
                                              "nacksReceived", "nacksSent", "syntaxErrors", "tagExchanges", "tagTimeouts"])
        let commands = try #require(Self.keys(ordered["counters"]?["commands"]))
        #expect(commands.contains("GetFirmwareVersion") && commands == commands.sorted(), "\(commands)")
        #expect(control.respond(to: #"{"op":"fly"}"#).hasPrefix(#"{"error":"unknown op 'fly'"#))
    }

    @Test("two tags at once, every tag type, hex messages and raw images")
    func manyTags() throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let control = SimulatorControl(simulator: sim)
        let image = Hex.string(try Type2Tag(.ultralight, uid: [0x04, 9, 9, 9, 9, 9, 9], message: [0xD0, 0x00, 0x00]).memory)
        let response = control.respond(to: """
            {"op":"place","tags":[
              {"type":"ntag213","uid":"04010203040506","ndef":"d1010455016162"},
              {"type":"type4","uid":"04112233445566","records":[{"mime":"text/plain","data":"x"}],"readOnly":true},
              {"type":"mifare-classic-1k","uid":"94d8fc5f","records":[{"json":"{\\"a\\":1}"}]},
              {"type":"mifare-ultralight","image":"\(image)"}]}
            """)
        #expect(try Self.object(response)["ok"] as? Bool == true, "\(response)")
        #expect(sim.tags.map(\.typeName) == ["ntag213", "type4", "mifare-classic-1k", "mifare-ultralight"])
        #expect(control.respond(to: #"{"op":"replace","type":"ntag216","uid":"04aabbccddeeff"}"#).contains(#""type":"ntag216""#))
        #expect(sim.tags.count == 1)
        #expect(control.respond(to: #"{"op":"remove"}"#) == #"{"ok":true,"removed":1}"#)
    }

    @Test("mistakes come back as errors a person can act on", arguments: [
        (#"{"op":"fly"}"#, "unknown op 'fly'"),
        (#"{"op":"place","type":"ntag999"}"#, "unknown tag type 'ntag999'"),
        (#"{"op":"place","type":"ntag213","uid":"zz"}"#, "uid is not hex"),
        (#"{"op":"place","type":"ntag213","uid":"04a224b2c35e8"}"#, "uid has an odd number of hex digits (13)"),
        (#"{"op":"place","type":"ntag213","uid":"0102"}"#, "UID is 2 bytes; this tag type takes 7"),
        (#"{"op":"place","type":"ntag213","ndef":"\#(String(repeating: "00", count: 200))"}"#, "content is 200 bytes; this tag holds 142"),
        (#"{"op":"place","type":"ntag213","records":[{"colour":"red"}]}"#, "a record needs one of uri, text"),
        (#"{"op":"dump","uid":"0102"}"#, "no tag with UID 0102"),
        (#"{"op":"feedback"}"#, "feedback is recorded by the vpcd card (--vpcd)"),
        (#"{"type":"ntag213"}"#, #"missing "op""#),
        ("not json", "not a JSON request: at byte 1: expected 'null'"),
        (#"{"op":"place","type":"ntag213""#, "not a JSON request: at byte 30"),
        ("[1,2]", #"expected a request object such as {"op":"list"}, got an array"#),
        (#"{"op":7}"#, "op: expected a string, got a number (7)"),
        (#"{"op":"place","uid":"04a224b2c35e80"}"#, #"missing "type""#),
        (#"{"op":"place","type":"ntag213","uid":7}"#, "uid: expected a string, got a number (7)"),
        (#"{"op":"place","tags":{"type":"ntag213"}}"#, "tags: expected an array of objects, got an object"),
        (#"{"op":"place","tags":[{"type":"ntag213"},{"type":true}]}"#, "tags[1].type: expected a string, got true"),
        (#"{"op":"place","tags":[{"type":"ntag213"},"ntag215"]}"#, #"tags[1]: expected an object, got a string ("ntag215")"#),
        (#"{"op":"place","type":"ntag213","records":[{"tnf":9,"type":"U"}]}"#, "records[0].tnf: expected a whole number from 0 to 6, got a number (9)"),
        (#"{"op":"place","type":"ntag213","records":[{"tnf":1,"type_hex":"zz"}]}"#, #"records[0].type_hex: expected hex digits, got a string ("zz")"#),
        (#"{"op":"place","type":"ntag213","readOnly":"yes"}"#, #"readOnly: expected true or false, got a string ("yes")"#),
        (#"{"op":"place","type":"ntag424","sun":{"diversify":{"aid":1}}}"#, "sun.diversify.aid: expected a string, got a number (1)"),
        (#"{"op":"remove","uid":"04a224b2c35e80","afterExchanges":-1}"#, "afterExchanges: expected a whole number, 0 or more, got a number (-1)"),
        (#"{"op":"remove","uid":"04a224b2c35e80","afterExchanges":1.5}"#, "afterExchanges: expected a whole number, 0 or more, got a number (1.5)"),
    ])
    func errors(line: String, expected: String) throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let response = try Self.object(SimulatorControl(simulator: sim).respond(to: line))
        #expect(response["ok"] as? Bool == false)
        #expect((response["error"] as? String)?.contains(expected) == true, "\(response)")
    }

    @Test("the Unix socket serves request lines to several clients and removes its file on close")
    func socket() throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let server = try Self.serve(sim)
        let path = server.path
        let first = try SocketClient(path: path), second = try SocketClient(path: path)
        #expect(try first.request(#"{"op":"place","type":"ntag213","uid":"04010203040506"}"#).contains(#""ok":true"#))
        #expect(try second.request(#"{"op":"list"}"#) == #"{"ok":true,"tags":[{"type":"ntag213","uid":"04010203040506"}]}"#)
        #expect(try first.request(#"{"op":"list"}"# + "\n" + #"{"op":"remove"}"#) == #"{"ok":true,"tags":[{"type":"ntag213","uid":"04010203040506"}]}"#)
        #expect(try first.readLine() == #"{"ok":true,"removed":1}"#)
        server.close()
        #expect(access(path, F_OK) != 0)
    }

    @Test("a line longer than the limit is answered with its size, then the connection ends; other clients go on")
    func oversizedLine() throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let server = try Self.serve(sim)
        let path = server.path
        defer { server.close() }
        let limit = SimulatorControl.maximumRequestBytes
        let inProcess = try ControlTests.object(SimulatorControl(simulator: sim).respond(to: #"{"op":"list","pad":""# + String(repeating: "x", count: limit) + #""}"#))
        #expect((inProcess["error"] as? String)?.contains("the request has \(limit + 22) bytes or more; a request line takes at most \(limit)") == true, "\(inProcess)")

        let flooding = try SocketClient(path: path), other = try SocketClient(path: path)
        // One byte past the limit and no newline: the server has read every byte when it answers.
        let head = Array(#"{"op":"list","pad":""#.utf8)
        try flooding.send(head + [UInt8](repeating: UInt8(ascii: "x"), count: limit + 1 - head.count))
        let answer = try ControlTests.object(try flooding.readLine())
        #expect(answer["ok"] as? Bool == false)
        #expect((answer["error"] as? String)?.contains("a request line takes at most \(SimulatorControl.maximumRequestBytes)") == true, "\(answer)")
        #expect(throws: RawHost.Failure.self) { try flooding.readLine() }
        #expect(try other.request(#"{"op":"list"}"#) == #"{"ok":true,"tags":[]}"#)
    }
}

/// A control-socket client: writes lines, reads lines (with a deadline).
final class SocketClient {
    private let fd: Int32
    private var pending: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { throw RawHost.Failure(description: "cannot connect to \(path)") }
    }

    deinit { close(fd) }

    func request(_ line: String) throws -> String {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return try readLine()
    }

    /// Writes `bytes` as they are (no newline added).
    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw RawHost.Failure(description: "the control socket took no more bytes") }
            sent += written
        }
    }

    func readLine() throws -> String {
        while !pending.contains(UInt8(ascii: "\n")) {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 10_000) > 0 else { throw RawHost.Failure(description: "no answer on the control socket") }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { throw RawHost.Failure(description: "control socket closed") }
            pending += buffer.prefix(count)
        }
        let newline = pending.firstIndex(of: UInt8(ascii: "\n"))!
        defer { pending.removeSubrange(...newline) }
        return String(decoding: pending[..<newline], as: UTF8.self)
    }
}
