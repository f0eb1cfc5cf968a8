import Foundation
import TagRouter
import TagRouterDaemon
import Testing

/// The shipped examples load with the real plugins' specs.
@Suite struct ExampleConfigTests {
    static let examples = ["home-assistant-mqtt.yaml", "music-box.yaml", "door-badge.yaml", "node-red.yaml"]
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test(arguments: examples) func exampleLoads(file: String) async throws {
        let text = try String(contentsOfFile: Self.repositoryRoot + "/config/examples/" + file, encoding: .utf8)
        let secrets = Scratch()
        defer { secrets.remove() }
        chmod(try secrets.write("mqtt-password", "secret"), 0o600)
        let loader = ConfigLoader(registry: BuiltinPlugins.registry, environment: ["HOME": secrets.path], dryRun: true)
        let config = try loader.load(text: text.replacingOccurrences(of: "/etc/tagrouter/", with: secrets.path + "/"), file: file, directory: secrets.path)
        #expect(!config.routes.isEmpty)
    }

    /// Every shipped example, as found in config/examples.
    static var shippedExamples: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/config/examples")) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
    }

    @Test func everyShippedExamplePassesCheckConfigOnAMachineNotSetUp() async throws {
        #expect(Self.shippedExamples.count >= 7)
        let home = Scratch()
        defer { home.remove() }
        for file in Self.shippedExamples {
            let daemon = try TagrouterProcess(["check-config", "config/examples/" + file], directory: Self.repositoryRoot, environment: ["HOME": home.path])
            defer { daemon.stop() }
            #expect(try await daemon.exitStatus() == 0, "\(file): \(daemon.stderr.joined(separator: "\n"))")
            #expect(daemon.stdout.first == "config/examples/\(file): OK")
        }
    }

    @Test func aSecretNotProvidedYetIsAWarningThatSaysWhatToCreate() async throws {
        let daemon = try TagrouterProcess(["check-config", "config/examples/home-assistant-mqtt.yaml"], directory: Self.repositoryRoot)
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 0)
        #expect(daemon.stderr == [
            "config/examples/home-assistant-mqtt.yaml:24:18: warning: mqtt.password_file: cannot read '/etc/tagrouter/mqtt-password': there is no such file; "
                + "create it with the secret alone in it (mode 600, owned by the user tagrouter runs as); `run` refuses to start until it can",
        ])
    }

    @Test func anUnsetEnvironmentVariableIsAWarningForCheckConfigAndAnErrorForRun() async throws {
        let file = "config/examples/webhook-home-assistant.yaml"
        let check = try TagrouterProcess(["check-config", file], directory: Self.repositoryRoot)
        defer { check.stop() }
        #expect(try await check.exitStatus() == 0)
        #expect(check.stderr == [
            "\(file):20:16: warning: routes[0].actions[0].webhook.url: environment variable 'HA_WEBHOOK_ID' is not set; `run` refuses to start until it is (export HA_WEBHOOK_ID=…)",
        ])
        let run = try TagrouterProcess(["run", "--config", file, "--events-from", "-"], directory: Self.repositoryRoot)
        defer { run.stop() }
        #expect(try await run.exitStatus() == 65)
        #expect(run.stderr.contains { $0.contains("environment variable 'HA_WEBHOOK_ID' is not set") })
    }

    /// The daemon names its config (and the files it names) by absolute paths, though given a relative one.
    @Test func runRefusesToStartWithoutASecretFileAndSaysWhichToCreate() async throws {
        let run = try TagrouterProcess(["run", "--config", "config/examples/webhook-node-red.yaml", "--events-from", "-"], directory: Self.repositoryRoot)
        defer { run.stop() }
        #expect(try await run.exitStatus() == 65)
        let examples = Self.repositoryRoot + "/config/examples"
        #expect(run.stderr.first == "\(examples)/webhook-node-red.yaml:12:31: routes[0].actions[0].webhook.hmac.secret_file: "
            + "cannot read '\(examples)/node-red.key': there is no such file; create it with the secret alone in it (mode 600, owned by the user tagrouter runs as)")
    }

    /// The YAML configs the README and the user guide show (blocks with `routes:`), indentation removed.
    static var documentedConfigs: [(place: String, text: String)] {
        let guide = ((try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/docs/guide")) ?? []).filter { $0.hasSuffix(".md") }.sorted()
        return (["README.md"] + guide.map { "docs/guide/" + $0 }).flatMap { file -> [(place: String, text: String)] in
            let text = (try? String(contentsOfFile: repositoryRoot + "/" + file, encoding: .utf8)) ?? ""
            var blocks: [(place: String, text: String)] = []
            var open: (line: Int, indent: Int, lines: [Substring])?
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.drop { $0 == " " }
                if let current = open {
                    if trimmed == "```" {
                        blocks.append(("\(file):\(current.line)", current.lines.joined(separator: "\n") + "\n"))
                        open = nil
                    } else {
                        open?.lines.append(line.dropFirst(min(current.indent, line.count - trimmed.count)))
                    }
                } else if trimmed == "```yaml" {
                    open = (number + 1, line.count - trimmed.count, [])
                }
            }
            return blocks.filter { $0.text.contains("routes:") }
        }
    }

    /// "A config written from the docs worked first time": every one passes `check-config` as shown.
    @Test func everyConfigTheDocsShowPassesCheckConfig() async throws {
        let configs = Self.documentedConfigs
        #expect(configs.contains { $0.place.hasPrefix("README.md:") })
        #expect(configs.contains { $0.place.hasPrefix("docs/guide/first-config.md:") })
        let scratch = Scratch()
        defer { scratch.remove() }
        for (place, text) in configs {
            let file = try scratch.write("tagrouter.yaml", text)
            let check = try TagrouterProcess(["check-config", file], directory: scratch.path, environment: ["HOME": scratch.path])
            defer { check.stop() }
            #expect(try await check.exitStatus() == 0, "\(place): \(check.stderr.joined(separator: "\n"))")
        }
    }

    @Test func theReadmeNamesEveryExample() async throws {
        let readme = try String(contentsOfFile: Self.repositoryRoot + "/README.md", encoding: .utf8)
        for file in Self.shippedExamples { #expect(readme.contains("config/examples/\(file)"), "README does not mention \(file)") }
    }
}
