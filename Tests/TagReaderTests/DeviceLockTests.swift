import Foundation
import Glibc
import Harness
import PN532Sim
import SystemKit
import TestSupport
import Testing

@testable import TagReader

/// One device, one process: a second daemon waits for the device, one-shot
/// tools exit saying which pid holds it.
@Suite struct DeviceLockTests {
    /// A fresh folder for lock files and configs, removed at the end.
    final class Folder {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tagrouter-lock-\(UUID().uuidString)").path
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test(arguments: [
        ("pn532_uart:/no/such/tty:115200", "pn532_uart:/no/such/tty"),
        ("pn53x_usb:002:003", "pn53x_usb:002:003"),
        ("acr122_usb", "acr122_usb"),
    ])
    func theLockIsKeyedByDriverAndPort(connstring: String, key: String) {
        #expect(DeviceLock.key(for: connstring) == key)
    }

    @Test func aSymlinkAndItsTargetShareOneLockFile() throws {
        let folder = try Folder()
        #expect(FileManager.default.createFile(atPath: folder.path + "/ttyS9", contents: nil))
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/by-id", withDestinationPath: folder.path + "/ttyS9")
        let name = DeviceLock.fileName(for: "pn532_uart:\(folder.path)/by-id:115200")
        #expect(name == DeviceLock.fileName(for: "pn532_uart:\(folder.path)/ttyS9"))
        #expect(name.hasSuffix("_ttyS9.lock"))
        #expect(!name.dropLast(5).contains { !($0.isLetter || $0.isNumber || "._-".contains($0)) })
    }

    @Test func theRuntimeDirectoryIsSystemdsElseXDGsAndMustBeOurs() throws {
        let folder = try Folder()
        #expect(try DeviceLock.runtimeDirectory(environment: ["RUNTIME_DIRECTORY": folder.path + ":/elsewhere", "XDG_RUNTIME_DIR": "/x"]) == folder.path)
        let xdg = try DeviceLock.runtimeDirectory(environment: ["XDG_RUNTIME_DIR": folder.path])
        #expect(xdg == folder.path + "/tagrouter")
        var status = stat()
        #expect(stat(xdg, &status) == 0 && status.st_mode & 0o777 == 0o750)
        let open = folder.path + "/open"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
        chmod(open, 0o777)
        #expect(throws: RuntimeDirectory.Problem.self) { try DeviceLock.runtimeDirectory(environment: ["RUNTIME_DIRECTORY": open]) }
    }

    /// The service's lock in its folder is seen from outside it: held (with the pid written), then free once let go.
    @Test func aLockHeldInTheServicesFolderIsSeenByOthers() throws {
        let folder = try Folder()
        let connstring = "pn532_uart:\(folder.path)/ttyS7:115200"
        #expect(DeviceLock.holder(of: connstring, in: folder.path) == nil, "no lock file: nobody holds it")
        let path = folder.path + "/" + DeviceLock.fileName(for: connstring)
        let held = open(path, O_RDWR | O_CREAT, 0o640)
        defer { close(held) }
        #expect(flock(held, LOCK_EX | LOCK_NB) == 0)
        #expect(pwrite(held, "4242\n", 5, 0) == 5)
        #expect(DeviceLock.holder(of: connstring, in: folder.path) == .some(4242))
        #expect(flock(held, LOCK_UN) == 0)
        #expect(DeviceLock.holder(of: connstring, in: folder.path) == nil)
    }

    @Test func aSecondProcessIsToldWhoHoldsTheDeviceAndTheDaemonWaitsForIt() async throws {
        let folder = try Folder()
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let environment = ["RUNTIME_DIRECTORY": folder.path + "/run", "LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false"]
        func config(_ name: String) throws -> String {
            let file = folder.path + "/\(name).yaml"
            try """
                state_dir: \(folder.path)/\(name)
                readers: [{ name: \(name), device: "\(sim.connstring)" }]
                routes: [{ name: up, match: { event: reader.connected }, actions: [{ log: "connected {{reader}}" }] }]
                """.write(toFile: file, atomically: true, encoding: .utf8)
            return file
        }
        let first = try RunningTool(BuiltProducts.tagrouter.path, ["run", "--config", try config("first")], environment: environment)
        try await first.waitForStdout(containing: "connected first", timeout: .seconds(30))
        let inUse = "device \(sim.connstring) is in use by pid \(first.pid)"

        for tool in [["read", "--direct", "--timeout", "5"], ["write", "--direct", "--timeout", "5", "--text", "x"], ["watch"]] {
            let run = try await ToolRun(BuiltProducts.tagrouter.path, tool + ["--device", sim.connstring], environment: environment)
            #expect(run.status == 1, "\(tool[0]): \(run.stderr)")
            #expect(run.stderr.contains(inUse), "\(tool[0]): \(run.stderr)")
        }
        // Without --direct, read and write go through the daemon (its control socket is in the same
        // runtime directory), whose reader waits for a tag on their behalf.
        let through = try await ToolRun(
            BuiltProducts.tagrouter.path, ["write", "--timeout", "0.5", "--text", "x", "--device", sim.connstring], environment: environment)
        #expect(through.status == 1)
        #expect(through.stderr == "error: no tag arrived on reader 'first' within 0.5 s\n")

        let second = try RunningTool(BuiltProducts.tagrouter.path, ["run", "--config", try config("second")], environment: environment)
        try await second.waitForStderr(containing: inUse + "; waiting for it")
        first.signal(SIGTERM)
        #expect(try await first.termination().status == .exited(0))
        try await second.waitForStdout(containing: "connected second", timeout: .seconds(30))
        #expect(second.stderr.filter { $0.text.contains("is in use") }.count == 1, "logged once")
        second.signal(SIGTERM)
        _ = try await second.termination()
    }
}
