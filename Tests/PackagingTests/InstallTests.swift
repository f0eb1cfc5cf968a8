import Foundation
import TestSupport
import Testing

/// `make install` / `make uninstall` (scripts/install-files.sh) outside a package, and the units they install.
@Suite struct InstallTests {
    static let script = BuiltProducts.packageRoot.appendingPathComponent("scripts/install-files.sh").path

    static func files(under root: String) -> Set<String> {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var files: Set<String> = []
        while let path = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder), !isFolder.boolValue {
                files.insert("/" + path)
            }
        }
        return files
    }

    /// Installed with a PREFIX of its own (no DESTDIR), the units point at that PREFIX's binary, so
    /// `systemd-analyze verify` checks them as they would run: syntax, the binary, the man page.
    @Test func installsUnitsSystemdAcceptsAndUninstallsEverything() async throws {
        let prefix = try TemporaryFolder.make("tagrouter-prefix")
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let settings = ["PREFIX": prefix + "/usr", "SYSCONFDIR": prefix + "/etc", "BINARY": BuiltPackage.releaseBinary]
        try await Shell.check(Self.script, ["install"], environment: settings)
        let listed = try await Shell.check(Self.script, ["list"], environment: settings).split(separator: "\n").map { String($0.dropFirst(prefix.count)) }
        #expect(Self.files(under: prefix) == Set(listed))

        let units = ["system/tagrouter.service", "user/tagrouter.service"].map { prefix + "/usr/lib/systemd/" + $0 }
        // A user manager needs a runtime directory of its own (the test may run without a login session).
        let runtime = try TemporaryFolder.make("tagrouter-runtime")
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime)
        for unit in units {
            #expect(try String(contentsOfFile: unit, encoding: .utf8).contains("ExecStart=\(prefix)/usr/bin/tagrouter run"))
            let verify = try await Shell.run(
                "systemd-analyze", ["verify", unit] + (unit.contains("/user/") ? ["--user"] : []),
                environment: ["MANPATH": prefix + "/usr/share/man", "XDG_RUNTIME_DIR": runtime])
            #expect(verify.status == 0, "\(unit): \(verify.stdout)\(verify.stderr)")
            #expect(verify.stderr.isEmpty, "\(unit): \(verify.stderr)")
        }

        let edited = prefix + "/etc/tagrouter/tagrouter.yaml"
        try "readers: []\n".write(toFile: edited, atomically: true, encoding: .utf8)
        try await Shell.check(Self.script, ["uninstall"], environment: settings)
        #expect(Self.files(under: prefix) == ["/etc/tagrouter/tagrouter.yaml"], "a config the user changed stays")
    }

    /// The system unit's sandbox, scored by systemd itself: issue 30's bound is 1.5; it is 1.4 with this machine's
    /// systemd 252 offline (and in the booted trixie container, `make boot-test`), and stays at most 1.5.
    @Test func systemUnitExposureIsAtMostOnePointFive() async throws {
        let unit = BuiltProducts.packageRoot.appendingPathComponent("config/systemd/tagrouter.service").path
        let security = try await Shell.run("systemd-analyze", ["security", "--offline=yes", "--no-pager", unit])
        let line = try #require(security.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let score = try #require(line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) })
        #expect(score <= 1.5, "\(line)")
        for setting in ["ProtectSystem=", "DevicePolicy=", "RestrictNamespaces=", "SystemCallFilter=~@privileged", "PrivateUsers="] {
            #expect(!security.stdout.contains("✗ \(setting)"), "\(setting) is not in force")
        }
    }
}
