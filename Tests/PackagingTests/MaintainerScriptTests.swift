import Foundation
import Harness
import TestSupport
import Testing

/// The package's maintainer scripts run for real — `dpkg -i`, an upgrade over an edited conffile, `dpkg -r`,
/// `dpkg --purge` — in a throwaway copy of this machine (`scripts/deb-sandbox.sh`: an overlay over `/` in a private
/// mount namespace), so adduser, deb-systemd-helper and dpkg's conffile handling are the real ones.
@Suite(.serialized) struct MaintainerScriptTests {
    /// One overlay sandbox with the package's file at `/root/tagrouter.deb`, and man-db's index not rebuilt
    /// (Debian's own trigger, not our scripts: it took 12-16 s of each `dpkg` call here).
    struct Sandbox {
        let folder: String

        init(holding package: BuiltPackage) async throws {
            folder = try TemporaryFolder.make("tagrouter-sandbox")
            try FileManager.default.createDirectory(atPath: folder + "/upper/root", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: package.file, toPath: folder + "/upper/root/tagrouter.deb")
            try await run("rm -f /var/lib/man-db/auto-update")
        }

        /// Runs a shell command inside the sandbox; a non-zero exit fails with everything it printed.
        @discardableResult
        func run(_ command: String) async throws -> String {
            let script = BuiltProducts.packageRoot.appendingPathComponent("scripts/deb-sandbox.sh").path
            let run = try await Shell.run(script, [folder, "/bin/sh", "-c", command], timeout: .seconds(180))
            guard run.status == 0 else {
                throw TestFailure(description: "in the sandbox, `\(command)` exited \(run.status):\n\(run.stdout)\n\(run.stderr)")
            }
            return run.stdout
        }

        func remove() { try? FileManager.default.removeItem(atPath: folder) }
    }

    static let enabledLink = "/etc/systemd/system/multi-user.target.wants/tagrouter.service"

    @Test(.enabled(if: getuid() == 0, "needs root: mounts an overlay over / and chroots into it (scripts/deb-sandbox.sh)"))
    func installCreatesTheServiceUserEnablesTheUnitKeepsAnEditedConfigAndPurgeRemovesState() async throws {
        let sandbox = try await Sandbox(holding: try await BuiltPackage.shared)
        defer { sandbox.remove() }

        try await sandbox.run("dpkg -i /root/tagrouter.deb")
        let user = try await sandbox.run("getent passwd tagrouter").split(separator: ":").map(String.init)
        #expect(user.count == 7 && user[5] == "/var/lib/tagrouter" && user[6] == "/usr/sbin/nologin\n", "\(user)")
        let groups = try await sandbox.run("id -nG tagrouter").split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(groups.contains("plugdev") && groups.contains("dialout"), "the service user cannot open readers: \(groups)")
        #expect(try await sandbox.run("readlink \(Self.enabledLink)") == "/lib/systemd/system/tagrouter.service\n")

        // The service user can read the packaged config and the binary accepts it.
        let check = try await sandbox.run("runuser -u tagrouter -- tagrouter check-config /etc/tagrouter/tagrouter.yaml")
        #expect(check.contains("log-readers: 1 action (log)"), "\(check)")

        // An upgrade keeps the user's edits to the conffile and the state.
        try await sandbox.run("echo '# edited by the user' >> /etc/tagrouter/tagrouter.yaml"
            + " && mkdir -p /var/lib/tagrouter/spool && touch /var/lib/tagrouter/spool/entry")
        try await sandbox.run("dpkg -i /root/tagrouter.deb")
        #expect(try await sandbox.run("tail -n 1 /etc/tagrouter/tagrouter.yaml") == "# edited by the user\n")
        try await sandbox.run("test -f /var/lib/tagrouter/spool/entry")

        // Remove keeps configuration and state; the unit is masked off.
        try await sandbox.run("dpkg -r tagrouter")
        try await sandbox.run("test ! -e /usr/bin/tagrouter && test -f /etc/tagrouter/tagrouter.yaml && test -d /var/lib/tagrouter")

        // Purge removes configuration, state and the unit's links; the user stays (files of it may remain elsewhere).
        try await sandbox.run("dpkg --purge tagrouter")
        try await sandbox.run("test ! -e /etc/tagrouter && test ! -e /var/lib/tagrouter && test ! -L \(Self.enabledLink)")
        try await sandbox.run("getent passwd tagrouter >/dev/null")
    }
}
