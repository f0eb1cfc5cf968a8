import Foundation
import TagCore
import TestSupport
import Testing

/// `make deb`: the package's metadata, its files, and what runs from it once unpacked.
@Suite struct DebianPackageTests {
    @Test func metadataNamesVersionArchitectureAndWhatTheBinaryLinks() async throws {
        let package = try await BuiltPackage.shared
        let architecture = try await Shell.check("dpkg", ["--print-architecture"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let version = try await package.field("Version")
        #expect(version.hasPrefix(tagrouterVersion + "-"))
        #expect(try await package.field("Package") == "tagrouter")
        #expect(try await package.field("Architecture") == architecture)
        #expect(package.file.hasSuffix("/tagrouter_\(version)_\(architecture).deb"))

        let depends = try await package.field("Depends").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for library in ["libnfc6", "libmosquitto1", "libyaml-0-2", "libssl3", "libc6", "adduser"] {
            #expect(depends.contains { $0 == library || $0.hasPrefix(library + " ") }, "Depends lacks \(library): \(depends)")
        }
        // The release binary's packed relocations (DT_RELR) need glibc 2.36: an older one must refuse the package.
        #expect(depends.contains("libc6 (>= 2.36)"), "Depends: \(depends)")
        let recommends = try await package.field("Recommends")
        for (library, debianPackage) in [("libcurl", "libcurl4"), ("libmicrohttpd", "libmicrohttpd12"), ("libsystemd", "libsystemd0")] {
            #expect(!depends.contains { $0.hasPrefix(library) }, "\(library) is loaded on first use, not linked: \(depends)")
            #expect(recommends.contains(debianPackage), "Recommends lacks \(debianPackage): \(recommends)")
        }

        let info = try await Shell.check("dpkg-deb", ["-I", package.file, "conffiles"])
        #expect(info == "/etc/tagrouter/tagrouter.yaml\n")
        let scripts = try await Shell.check("dpkg-deb", ["-I", package.file])
        for script in ["postinst", "prerm", "postrm", "md5sums"] { #expect(scripts.contains(" \(script)"), "no \(script)") }
    }

    /// The package holds exactly what `make install` installs with PREFIX=/usr, plus the Debian changelog.
    @Test func filesAreTheInstallListOwnedByRoot() async throws {
        let package = try await BuiltPackage.shared
        let listing = try await Shell.check("dpkg-deb", ["-c", package.file]).split(separator: "\n")
        var files: [String: String] = [:]
        for line in listing where line.hasPrefix("-") {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            files[String(columns.last!.dropFirst())] = "\(columns[0]) \(columns[1])"
        }
        let list = try await Shell.check(
            BuiltProducts.packageRoot.appendingPathComponent("scripts/install-files.sh").path, ["list"], environment: ["PREFIX": "/usr"])
        let expected = Set(list.split(separator: "\n").map(String.init) + ["/usr/share/doc/tagrouter/changelog.Debian.gz"])
        #expect(Set(files.keys) == expected)
        #expect(files["/usr/bin/tagrouter"] == "-rwxr-xr-x root/root")
        #expect(files["/etc/tagrouter/tagrouter.yaml"] == "-rw-r--r-- root/root")
        for (file, mode) in files where file != "/usr/bin/tagrouter" { #expect(mode == "-rw-r--r-- root/root", "\(file)") }
    }

    @Test func unpackedBinaryRunsStrippedAndChecksThePackagedConfig() async throws {
        let package = try await BuiltPackage.shared
        let binary = package.root + "/usr/bin/tagrouter"
        let version = try await Shell.run(binary, ["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == "tagrouter \(tagrouterVersion)\n")
        let sections = try await Shell.check("readelf", ["-S", "-W", binary])
        #expect(!sections.contains(".symtab"), "the binary is not stripped")

        let check = try await Shell.run(binary, ["check-config", package.root + "/etc/tagrouter/tagrouter.yaml"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("log-every-tap: 0 actions"), "\(check.stdout)")
        #expect(check.stdout.contains("log-readers: 1 action (log)"), "\(check.stdout)")
    }

    /// The Home Assistant and Node-RED blocks work once uncommented the way the file says: drop the first "# ".
    @Test func commentedBlocksOfThePackagedConfigAreValidOnceUncommented() async throws {
        let package = try await BuiltPackage.shared
        let shipped = try String(contentsOfFile: package.root + "/etc/tagrouter/tagrouter.yaml", encoding: .utf8)
        var seenContent = false
        let uncommented = shipped.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            if !line.hasPrefix("#") && !line.isEmpty { seenContent = true }
            return seenContent && line.hasPrefix("# ") ? line.dropFirst(2) : line
        }
        let folder = try TemporaryFolder.make("tagrouter-config")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/tagrouter.yaml"
        try uncommented.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let check = try await Shell.run(package.root + "/usr/bin/tagrouter", ["check-config", file])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        for route in ["log-every-tap", "home-assistant", "node-red"] { #expect(check.stdout.contains("  \(route): "), "\(route)") }
    }

    /// `make deb` and `make install` build the one product they ship, not the bench tools and probes
    /// `make release` builds beside it (which also made the linker warn about their `mktemp`).
    @Test func makeDebAndInstallBuildOnlyTheShippedProduct() async throws {
        let plan = try await Shell.check("make", ["-n", "-C", BuiltProducts.packageRoot.path, "deb", "install"])
        let builds = plan.split(separator: "\n").filter { $0.contains("build-release.sh") }
        #expect(builds.count == 2, "\(plan)")
        for build in builds { #expect(build.contains("build-release.sh --product tagrouter"), "\(build)") }
    }

    @Test func lintianFindsNoErrors() async throws {
        let package = try await BuiltPackage.shared
        let lintian = try await Shell.run("lintian", ["--fail-on", "error", "--tag-display-limit", "0", package.file], timeout: .seconds(300))
        #expect(lintian.status == 0, "\(lintian.stdout)\(lintian.stderr)")
        #expect(!lintian.stdout.contains("E: "), "\(lintian.stdout)")
    }
}
