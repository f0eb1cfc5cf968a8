import Foundation
import NDEF
import OrderedJSON
import PN532Sim
import TagKit
import Testing
import TestSupport

/// `tagrouter write --protect --password-file` and later writes to the protected tag, as real
/// processes through libnfc against the simulator's NTAG model (PWD_AUTH, AUTH0, PACK).
@Suite(.serialized) struct ProtectedWriteCLITests {
    /// A folder of password files, removed at the end.
    final class Passwords {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tag-passwords-\(UUID().uuidString)")

        init() throws { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// A file holding `text`, with `mode`.
        func file(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            return path
        }
    }

    static func tool(_ arguments: [String]) async throws -> ToolRun { try await ReaderCLITests.tagrouter(arguments) }

    static func message(_ sim: PN532Simulator) throws -> NDEFMessage? { try ReaderCLITests.message(on: sim) }

    @Test(arguments: [Type2TagType.ntag213, .ntag215, .ntag216])
    func protectThenOnlyThePasswordWrites(type: Type2TagType) async throws {
        let sim = try ReaderCLITests.simulator(with: [.text("first")], type)
        defer { sim.close() }
        let passwords = try Passwords()
        let right = try passwords.file("right", "0a1b2c3d 5e6f\n")

        let protect = try await Self.tool(["write", "--device", sim.connstring, "--protect", "--password-file", right, "--text", "protected"])
        #expect(protect.status == 0, "\(protect.stderr)")
        #expect(protect.stdout.hasSuffix("read back and verified; writes to it need the password\n"), "\(protect.stdout)")
        let cfg0 = type.pageCount - 4
        let memory = try #require(sim.tag(uid: ReaderCLITests.uid)?.memory)
        #expect(Array(memory[(cfg0 * 4)..<(cfg0 * 4 + 16)]) == [0x04, 0x00, 0x00, 0x04, 0x00, 0x05, 0x00, 0x00, 0x0A, 0x1B, 0x2C, 0x3D, 0x5E, 0x6F, 0x00, 0x00])

        // Reading stays open.
        let read = try await Self.tool(["read", "--device", sim.connstring, "--timeout", "10"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(try JSONValue.parse(read.stdout)["text"] == "protected")

        let without = try await Self.tool(["write", "--device", sim.connstring, "--text", "vandal"])
        #expect(without.status == 65)
        #expect(without.stderr == "error: this \(type.rawValue.uppercased()) is password-protected (writes from page 4 on need its password); "
            + "give the password it was protected with (`--password-file FILE`, or `tag_password_file` in the daemon's config)\n")
        #expect(try Self.message(sim) == NDEFMessage(records: [.text("protected")]))

        let wrong = try await Self.tool(["write", "--device", sim.connstring, "--password-file", try passwords.file("wrong", "ffffffff0000"), "--text", "vandal"])
        #expect(wrong.status == 65)
        #expect(wrong.stderr == "error: the \(type.rawValue.uppercased()) refused the password (PWD_AUTH answered NAK): it was protected with another one\n")
        #expect(try Self.message(sim) == NDEFMessage(records: [.text("protected")]))

        let again = try await Self.tool(["write", "--device", sim.connstring, "--password-file", right, "--text", "second"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.hasSuffix("; writes to it need the password\n"))
        #expect(try Self.message(sim) == NDEFMessage(records: [.text("second")]))
    }

    @Test func aWrongPACKIsReportedAndNothingIsWritten() async throws {
        let sim = try ReaderCLITests.simulator(with: [.text("first")], .ntag215)
        defer { sim.close() }
        let passwords = try Passwords()
        let protect = try await Self.tool(["write", "--device", sim.connstring, "--protect", "--password-file", try passwords.file("p", "0a1b2c3d5e6f"), "--text", "mine"])
        #expect(protect.status == 0, "\(protect.stderr)")
        let other = try await Self.tool(["write", "--device", sim.connstring, "--password-file", try passwords.file("q", "0a:1b:2c:3d:00:01"), "--text", "x"])
        #expect(other.status == 65)
        #expect(other.stderr == "error: tag answered PACK 5e6f, expected 0001: not the tag you protected, or a different password\n")
        #expect(try Self.message(sim) == NDEFMessage(records: [.text("mine")]))
    }

    @Test func thePasswordFileMustBePrivateAndHoldTwelveHexDigits() async throws {
        let sim = try ReaderCLITests.simulator(with: [.text("first")], .ntag213)
        defer { sim.close() }
        let passwords = try Passwords()
        let open = try passwords.file("open", "0a1b2c3d5e6f", mode: 0o644)
        let shared = try await Self.tool(["write", "--device", sim.connstring, "--protect", "--password-file", open, "--text", "x"])
        #expect(shared.status == 65)
        #expect(shared.stderr == "error: '\(open)' can be read by other users (mode 644); `chmod 600 \(open)`, owned by the user tagrouter runs as\n")
        let short = try passwords.file("short", "0a1b2c3d")
        let bad = try await Self.tool(["write", "--device", sim.connstring, "--protect", "--password-file", short, "--text", "x"])
        #expect(bad.status == 65)
        #expect(bad.stderr.hasPrefix("error: '\(short)' must hold 12 hex digits: the 4-byte password then the 2-byte PACK"))
        let missing = passwords.directory.appendingPathComponent("missing").path
        let none = try await Self.tool(["write", "--device", sim.connstring, "--password-file", missing, "--text", "x"])
        #expect(none.status == 65)
        #expect(none.stderr.hasPrefix("error: cannot read the password file '\(missing)'"))
        let usage = try await Self.tool(["write", "--device", sim.connstring, "--protect", "--text", "x"])
        #expect(usage.status == 64)
        #expect(usage.stderr.hasPrefix("error: --protect needs --password-file FILE"))
        #expect(try Self.message(sim) == NDEFMessage(records: [.text("first")]))
        #expect(sim.tag(uid: ReaderCLITests.uid)?.memory[0x29 * 4 + 3] == 0xFF, "nothing was protected")
    }

    @Test func throughPCSCAProtectedTagIsRefusedAsUnsupportedAndNothingIsWritten() async throws {
        let model = ModelTransport(try Type2Tag(.ntag213, uid: ReaderCLITests.uid, message: NDEFMessage(records: [.text("first")]).encoded()))
        try Type2Driver(transport: model, tagType: "ntag213").protect(password: [0x0A, 0x1B, 0x2C, 0x3D], pack: [0x5E, 0x6F])
        let passwords = try Passwords()
        let password = try passwords.file("p", "0a1b2c3d5e6f")
        let daemon = try PCSCDaemon.shared.get()
        let environment = daemon.environment.merging(["LIBNFC_AUTO_SCAN": "false"]) { $1 }
        let unsupported = "error: this PC/SC reader reaches the NTAG213 with storage-card commands, which cannot send PWD_AUTH: "
            + "write a password-protected tag, or protect one, through a libnfc reader\n"
        try await daemon.withCard { card, slot in
            card.place(model.tag)
            let write = try await ToolRun(
                BuiltProducts.tagrouter.path, ["write", "--device", slot.device, "--timeout", "10", "--password-file", password, "--text", "x"],
                environment: environment)
            #expect(write.status == 65)
            #expect(write.stderr == unsupported)
            #expect(card.tag(uid: ReaderCLITests.uid)?.memory == model.tag.memory)
        }
        // A card of its own (swapping the tag under pcscd's feet is another test's subject).
        try await daemon.withCard { card, slot in
            card.place(try Type2Tag(.ntag213, uid: [0x04, 1, 2, 3, 4, 5, 6], message: NDEFMessage(records: [.text("open")]).encoded()))
            let protect = try await ToolRun(
                BuiltProducts.tagrouter.path, ["write", "--device", slot.device, "--timeout", "10", "--protect", "--password-file", password, "--text", "x"],
                environment: environment)
            #expect(protect.status == 65)
            #expect(protect.stderr == unsupported)
            #expect(card.tag(uid: [0x04, 1, 2, 3, 4, 5, 6])?.memory[0x29 * 4 + 3] == 0xFF, "nothing was protected")
        }
    }

    @Test func anUltralightCannotBeProtected() async throws {
        let sim = try ReaderCLITests.simulator(with: [.text("first")], .ultralight)
        defer { sim.close() }
        let passwords = try Passwords()
        let run = try await Self.tool(["write", "--device", sim.connstring, "--protect", "--password-file", try passwords.file("p", "0a1b2c3d5e6f"), "--text", "x"])
        #expect(run.status == 65)
        #expect(run.stderr == "error: only NTAG 213, 215 and 216 take a password; this is a MIFARE Ultralight\n")
        #expect(try Self.message(sim) == NDEFMessage(records: [.text("first")]))
    }
}
