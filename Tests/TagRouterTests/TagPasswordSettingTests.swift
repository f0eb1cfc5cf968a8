import Foundation
import Testing

@testable import TagRouter

/// `tag_password_file`: 12 hex digits in a private file, or `run` and `check-config` say what is wrong, naming the file.
@Suite struct TagPasswordSettingTests {
    @Test func aPrivateFileOfTwelveHexDigitsLoads() throws {
        let directory = try MetricsSettingsTests.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try MetricsSettingsTests.write("0a1b2c3d:5e6f\n", "tag-password", in: directory)
        let config = try load("tag_password_file: tag-password\n" + MetricsSettingsTests.routes, directory: directory)
        #expect(config.tagPassword?.password == [0x0A, 0x1B, 0x2C, 0x3D])
        #expect(config.tagPassword?.pack == [0x5E, 0x6F])
        #expect(try load(MetricsSettingsTests.routes).tagPassword == nil)
    }

    @Test(arguments: [
        ("open", "0a1b2c3d5e6f", 0o640, "'{dir}/open' can be read by other users (mode 640); `chmod 600 {dir}/open`, owned by the user tagrouter runs as"),
        ("short", "0a1b2c3d", 0o600, "'{dir}/short' must hold 12 hex digits: the 4-byte password then the 2-byte PACK (`openssl rand -hex 6 > {dir}/short && chmod 600 {dir}/short`)"),
        ("words", "my password", 0o600, "'{dir}/words' must hold 12 hex digits: the 4-byte password then the 2-byte PACK (`openssl rand -hex 6 > {dir}/words && chmod 600 {dir}/words`)"),
    ])
    func aFileThatKeepsNoPasswordIsRefused(name: String, contents: String, mode: Int, message: String) throws {
        let directory = try MetricsSettingsTests.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try MetricsSettingsTests.write(contents, name, in: directory, mode: mode)
        let text = "tag_password_file: \(directory)/\(name)\n" + MetricsSettingsTests.routes
        let expected = "t.yaml:1:20: tag_password_file: " + message.replacingOccurrences(of: "{dir}", with: directory)
        do {
            _ = try load(text, directory: directory)
            Issue.record("\(name) was taken as a password file")
        } catch {
            #expect(error.errors.map(\.description) == [expected])
        }
        // Issue 31: what `run` refuses, `check-config` refuses too (it used to warn and exit 0).
        do {
            _ = try ConfigLoader(registry: PluginRegistry([LogPlugin.self]), environment: ["HOME": "/tmp"], missingSecretsAreWarnings: true)
                .load(text: text, file: "t.yaml", directory: directory)
            Issue.record("check-config passed \(name)")
        } catch {
            #expect(error.errors.map(\.description) == [expected])
        }
    }
}
