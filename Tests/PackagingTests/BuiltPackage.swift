import Foundation
import Harness
import Synchronization
import TestSupport

/// The Debian package as `make deb` builds it, built once per test run into a
/// temporary folder from the release binary (`make test` builds that when it is
/// missing), and unpacked there with `dpkg-deb -x`; the folder goes when the test
/// process exits. Only its compression differs from `make deb`'s (gzip -1 rather
/// than xz, which takes a minute).
struct BuiltPackage: Sendable {
    /// The `.deb` file.
    let file: String
    /// Where it is unpacked: the files as they land on a machine that installs it.
    let root: String

    /// The package of this test run.
    static var shared: BuiltPackage {
        get async throws { try await building.value }
    }

    private static let building = Task { try await BuiltPackage.build() }

    static let releaseBinary = BuiltProducts.packageRoot.appendingPathComponent(".build/release/tagrouter").path

    private static func build() async throws -> BuiltPackage {
        guard FileManager.default.isExecutableFile(atPath: releaseBinary) else {
            throw TestFailure(description: "\(releaseBinary) is missing: `make test` builds it, or run `make release`")
        }
        let folder = try TemporaryFolder.make("tagrouter-deb")
        removedAtExit(folder)
        let build = try await Shell.run(
            BuiltProducts.packageRoot.appendingPathComponent("scripts/build-deb.sh").path, [],
            environment: ["BINARY": releaseBinary, "OUT": folder, "COMPRESSION": "gzip -z1"], timeout: .seconds(300))
        let file = build.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard build.status == 0, file.hasSuffix(".deb") else {
            throw TestFailure(description: "scripts/build-deb.sh failed (\(build.status)):\n\(build.stdout)\n\(build.stderr)")
        }
        let root = folder + "/root"
        try await Shell.check("dpkg-deb", ["-x", file, root])
        return BuiltPackage(file: file, root: root)
    }

    /// The package's folder, removed when the test process exits: no test owns the shared package, and
    /// each run left its 26 MB in /tmp.
    private static let folder = Mutex<String?>(nil)

    private static func removedAtExit(_ path: String) {
        folder.withLock { $0 = path }
        atexit {
            if let path = BuiltPackage.folder.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
    }

    /// A field of the package's control file (`dpkg-deb -f`).
    func field(_ name: String) async throws -> String {
        try await Shell.check("dpkg-deb", ["-f", file, name]).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
