import Foundation
import Harness
import TestSupport
import Testing

/// The CLI finds the system service as it is packaged (config/systemd/tagrouter.service:
/// its own user, `RuntimeDirectory=tagrouter`, `UMask=0027`) without `--control`, from
/// root and from a member of its group; a stranger is refused. The test gives the
/// processes a private `/run` (a mount namespace, `unshare`/`nsenter`) so the
/// machine's own `/run/tagrouter` is never touched, and runs them as other users
/// with `setpriv` — so it needs root, which CI has.
@Suite(.timeLimit(.minutes(3)))
struct PackagedServiceTests {
    static let blank = #"{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"text":"old"}]}"#
    static let member = PackagedService.member
    static let service = PackagedService.service

    @Test func rootAndTheServicesGroupFindTheServiceWithoutFlags() async throws {
        guard getuid() == 0 else { return }  // other users and a private /run need root
        let service = try await PackagedService(config: """
            state_dir: HOME/state
            readers: [{ name: front-door, device: "DEVICE", cooldown: 0s, exit_delay: 200ms }]
            routes:
              - { name: taps, match: { event: tag.arrived }, actions: [{ log: "tap {{tag.uid}}" }] }
              - { name: up, match: { event: reader.connected }, actions: [{ log: "connected {{reader}}" }] }
            """)
        defer { service.stop() }
        let daemon = service.daemon
        try await daemon.waitForStdout(containing: "connected front-door")
        let which = "pid \(daemon.pid), config \(service.config)"

        // status, from root and from a member of the service's group; a stranger is refused by the daemon.
        let rootStatus = try await service.run(["status"])
        #expect(rootStatus.status == 0, "\(rootStatus.stderr)")
        #expect(rootStatus.stdout.contains("pid \(daemon.pid)") && rootStatus.stdout.contains("config: \(service.config)"), "\(rootStatus.stdout)")
        #expect(rootStatus.stdout.contains("control: /run/tagrouter/control.sock"), "\(rootStatus.stdout)")
        let memberStatus = try await service.run(as: Self.member, groups: [Self.service], ["status"])
        #expect(memberStatus.status == 0, "\(memberStatus.stderr)")
        let strangerStatus = try await service.run(as: PackagedService.stranger, ["status"])
        #expect(strangerStatus.status == 1)
        #expect(strangerStatus.stderr.contains("/run/tagrouter/control.sock"), "\(strangerStatus.stderr)")

        // events, from the member and from root: each says which daemon it follows, and sees the taps.
        let events = try service.start(as: Self.member, groups: [Self.service], ["events"])
        let rootEvents = try service.start(["events"])
        for watcher in [events, rootEvents] {
            try await watcher.waitForStderr(containing: "following the events of tagrouter (\(which)) at /run/tagrouter/control.sock")
        }

        // write from the member (no --device: the daemon's only reader) goes through the daemon.
        let memberWrite = try service.start(as: Self.member, groups: [Self.service], ["write", "--text", "member", "--timeout", "20"])
        try await daemon.waitForStderr(containing: "write requested; waiting for a tag")
        try await service.request(Self.blank)
        #expect(try await memberWrite.termination().status == .exited(0), "\(memberWrite.stderr.map(\.text))")
        try await service.request(#"{"op":"remove"}"#)

        // write from root naming the device the service holds: through the service, never opening it underneath.
        let before = daemon.stderr.count
        let rootWrite = try service.start(["write", "--device", service.device, "--text", "root", "--timeout", "20"])
        try await daemon.waitForStderr(containing: "write requested; waiting for a tag", after: before)
        try await service.request(Self.blank)
        #expect(try await rootWrite.termination().status == .exited(0), "\(rootWrite.stderr.map(\.text))")
        #expect(!daemon.stderr.contains { $0.text.contains("reader lost") }, "\(daemon.stderr.map(\.text))")
        try await daemon.waitForStderr(containing: "tag written; not routed")

        // A tap (not a write) reaches both watchers.
        try await service.request(#"{"op":"remove"}"#)
        try await service.request(#"{"op":"place","type":"ntag213","uid":"04000000000001","records":[{"text":"hi","lang":"en"}]}"#)
        for watcher in [events, rootEvents] { try await watcher.waitForStdout(containing: "front-door tag.arrived 04000000000001") }
    }

    /// The documented way to name tags on a stock install: root runs `tags learn`, which finds the
    /// service where `status` does, and the tags file the service reads stays the service's
    /// (owner and mode kept), so the reload that follows succeeds.
    /// The packaged config's way to keep names: a tags file in the service's own folder (the service's, mode 0750;
    /// the file 0640), which only the service and root may write.
    static func namingService() async throws -> PackagedService {
        try await PackagedService(config: """
            state_dir: HOME/state
            readers: [{ name: front-door, device: "DEVICE", cooldown: 0s, exit_delay: 200ms }]
            tags: { file: HOME/state/tags.yaml }
            routes:
              - { name: taps, match: { event: tag.arrived }, actions: [{ log: "tap {{tag.name}}" }] }
              - { name: gone, match: { event: tag.removed }, actions: [{ log: "gone {{tag.uid}}" }] }
            """, prepare: { home in
                let state = home + "/state"
                try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
                chown(state, PackagedService.service, PackagedService.service)
                chmod(state, 0o750)
                try "# named tags\n".write(toFile: state + "/tags.yaml", atomically: true, encoding: .utf8)
                chown(state + "/tags.yaml", PackagedService.service, PackagedService.service)
                chmod(state + "/tags.yaml", 0o640)
            })
    }

    @Test func rootLearnsATagForTheServiceAndTheTagsFileStaysTheServices() async throws {
        guard getuid() == 0 else { return }
        let service = try await Self.namingService()
        defer { service.stop() }
        let tags = service.home + "/state/tags.yaml"
        let learn = try service.start(["tags", "learn", "--name", "door-key", "--timeout", "20"])
        try await service.daemon.waitForStderr(containing: "read requested; waiting for a tag")
        try await service.request(Self.blank)
        let end = try await learn.termination()
        #expect(end.status == .exited(0), "\((learn.stdout + learn.stderr).map(\.text))")
        try await learn.waitForStdout(containing: "The daemon reloaded its config.")
        let attributes = try FileManager.default.attributesOfItem(atPath: tags)
        #expect(attributes[.ownerAccountID] as? Int == Int(Self.service), "\(attributes)")
        #expect(attributes[.groupOwnerAccountID] as? Int == Int(Self.service), "\(attributes)")
        #expect(attributes[.posixPermissions] as? Int == 0o640, "\(attributes)")
        #expect(try String(contentsOfFile: tags, encoding: .utf8).contains(#"name: "door-key", uid: "04a224b2c35e80""#))
        let status = try await service.run(["status"])
        #expect(status.status == 0 && !status.stdout.contains("DEGRADED"), "\(status.stdout)\(status.stderr)")

        // The tag read for the name, still on the reader after the reload, is not routed as a tap: the next
        // tap routed is another tag's.
        try await service.request(#"{"op":"remove"}"#)
        try await service.request(#"{"op":"place","type":"ntag213","uid":"04000000000001","records":[{"text":"hi","lang":"en"}]}"#)
        try await service.daemon.waitForStdout(containing: "tap ")
        #expect(service.daemon.stdout.first { $0.text.contains("tap ") }?.text.contains("door-key") == false, "\(service.daemon.stdout.map(\.text))")

        // A tags file the service cannot read: the refused reload says why.
        chown(tags, 0, 0)
        chmod(tags, 0o600)
        let reload = try await service.run(["reload"])
        #expect(reload.status == 65, "\(reload.stdout)\(reload.stderr)")
        #expect(reload.stderr.contains("cannot read the tags file \(tags): permission denied to user "), "\(reload.stdout)\(reload.stderr)")
    }

    /// A member of the service's group may not write the service's folder, where the names live; the service writes
    /// them for it: `tags learn`, `rename` and `forget` ask the daemon over the control socket, which keeps its
    /// rules (a stranger is refused; a name with a control character too), and the next tap carries the name.
    @Test func aMemberOfTheServicesGroupNamesTagsThroughTheService() async throws {
        guard getuid() == 0 else { return }
        let service = try await Self.namingService()
        defer { service.stop() }
        let tags = service.home + "/state/tags.yaml"
        let member = (uid: Self.member, groups: [Self.service])
        let learn = try service.start(as: member.uid, groups: member.groups, ["tags", "learn", "--name", "door-key", "--groups", "family", "--timeout", "20"])
        try await service.daemon.waitForStderr(containing: "read requested; waiting for a tag")
        try await service.request(Self.blank)
        let end = try await learn.termination()
        let said = (learn.stdout + learn.stderr).map(\.text)
        #expect(end.status == .exited(0), "\(said)")
        #expect(said.contains("added 'door-key' (04a224b2c35e80) to \(tags)") && said.contains("The daemon reloaded its config."), "\(said)")
        try await service.daemon.waitForStderr(containing: "named tags changed through the control socket")
        let attributes = try FileManager.default.attributesOfItem(atPath: tags)
        #expect(attributes[.ownerAccountID] as? Int == Int(Self.service) && attributes[.posixPermissions] as? Int == 0o640, "\(attributes)")
        #expect(try String(contentsOfFile: tags, encoding: .utf8).contains(#"name: "door-key", uid: "04a224b2c35e80", groups: ["family"]"#))

        // The name is on the next tap. The learnt tag, lifted, is the same presence until exit_delay after it was last
        // seen; another tag's removal, reported exit_delay after that tag was last seen (later), shows it has ended.
        try await service.request(#"{"op":"remove"}"#)
        try await service.request(#"{"op":"place","type":"ntag213","uid":"04000000000001","records":[{"text":"hi","lang":"en"}]}"#)
        try await service.daemon.waitForStdout(containing: "tap ")
        try await service.request(#"{"op":"remove"}"#)
        try await service.daemon.waitForStdout(containing: "gone 04000000000001")
        try await service.request(Self.blank)
        try await service.daemon.waitForStdout(containing: "tap door-key")

        let rename = try await service.run(as: member.uid, groups: member.groups, ["tags", "rename", "door-key", "front-door-key"])
        #expect(rename.status == 0 && rename.stdout.contains("renamed 'door-key' to 'front-door-key' in \(tags)"), "\(rename.stdout)\(rename.stderr)")
        let controls = try await service.run(as: member.uid, groups: member.groups, ["tags", "rename", "front-door-key", "door\u{1B}[31m"])
        #expect(controls.status == 64 && controls.stderr.contains("holds a control or formatting character"), "\(controls.stdout)\(controls.stderr)")
        let stranger = try await service.run(as: PackagedService.stranger, ["tags", "forget", "front-door-key", "--config", service.config])
        #expect(stranger.status != 0, "\(stranger.stdout)\(stranger.stderr)")
        let forget = try await service.run(as: member.uid, groups: member.groups, ["tags", "forget", "front-door-key"])
        #expect(forget.status == 0 && forget.stdout.contains("forgot 'front-door-key' in \(tags)"), "\(forget.stdout)\(forget.stderr)")
        #expect(try !String(contentsOfFile: tags, encoding: .utf8).contains("door-key"))
    }

    /// One reader on the simulator, every tap logged: the service as the two tests below need it.
    static let oneReaderLoggingTaps = """
        state_dir: HOME/state
        readers: [{ name: front-door, device: "DEVICE" }]
        routes: [{ name: taps, match: { event: tag.arrived }, actions: [log] }]
        """

    /// `sudo tagrouter run` beside the running service (on the same config, from a login shell) does not start a
    /// second daemon that would fight it for the reader and the MQTT client id: it names the one running.
    @Test func aSecondDaemonDoesNotStartBesideTheService() async throws {
        guard getuid() == 0 else { return }
        let service = try await PackagedService(config: Self.oneReaderLoggingTaps)
        defer { service.stop() }
        let second = try await service.run(["run", "--config", service.config])
        #expect(second.status == 1, "\(second.stdout)\(second.stderr)")
        #expect(second.stderr.contains("another tagrouter daemon (pid \(service.daemon.pid), config \(service.config)) already answers at /run/tagrouter/control.sock"),
                "\(second.stderr)")
    }

    /// Every secret recipe the docs show (README.md, docs/**: a command that writes a secret file) is the one
    /// convention of docs/guide/service.md "Secrets" — `… | install -o tagrouter -g tagrouter -m 600 /dev/stdin FILE`
    /// with `sudo` for the service's files, without the owner for your own — and, run as shown, makes a file that
    /// the setting it is for accepts, read as its user reads it. The recipe the docs gave before
    /// (`openssl rand -hex 24 > file; chmod 600` as root) made one the service cannot read.
    @Test func everySecretRecipeInTheDocsMakesAFileItsReaderReads() async throws {
        guard getuid() == 0 else { return }
        let service = try await PackagedService(config: Self.oneReaderLoggingTaps)
        defer { service.stop() }
        let recipes = try DocumentedSecretRecipe.all()
        // The pages that make secrets, each found (a page that stopped showing its recipe would go unchecked).
        #expect(Set(recipes.map(\.page)).isSuperset(of: ["docs/guide/service.md", "docs/secure-tags.md", "docs/fleet.md", "docs/protected-tags.md", "docs/guide/metrics.md"]),
                "\(recipes.map(\.place))")
        let desk = service.home + "/desk"  // your own home, for the recipes without sudo
        try FileManager.default.createDirectory(atPath: desk, withIntermediateDirectories: false)
        chown(desk, Self.member, Self.member)
        try FileManager.default.createDirectory(atPath: service.home + "/etc/tagrouter", withIntermediateDirectories: true)
        for recipe in recipes {
            guard let shape = recipe.shape else {
                Issue.record("\(recipe.place): `\(recipe.command)` is not the secret-file convention (docs/guide/service.md \"Secrets\")")
                continue
            }
            let reader = shape.forTheService ? Self.service : Self.member
            let command = recipe.command
                .replacingOccurrences(of: "sudo ", with: "")
                .replacingOccurrences(of: "-o tagrouter -g tagrouter", with: "-o \(Self.service) -g \(Self.service)")
                .replacingOccurrences(of: "~/", with: desk + "/")
                .replacingOccurrences(of: "/etc/tagrouter/", with: service.home + "/etc/tagrouter/")
            let file = shape.file.replacingOccurrences(of: "~/", with: desk + "/").replacingOccurrences(of: "/etc/tagrouter/", with: service.home + "/etc/tagrouter/")
            let made = shape.forTheService
                ? try await ToolRun("/bin/sh", ["-c", command])
                : try await ToolRun("/usr/bin/setpriv", ["--reuid=\(Self.member)", "--regid=\(Self.member)", "--clear-groups", "/bin/sh", "-c", command], environment: ["HOME": desk])
            #expect(made.status == 0, "\(recipe.place): `\(command)`: \(made.stderr)")
            guard let setting = DocumentedSecretRecipe.setting(reading: shape.file) else {
                Issue.record("\(recipe.place): which setting reads \(shape.file)? Say so in DocumentedSecretRecipe.setting(reading:)")
                continue
            }
            let checked = try await Self.checkConfig(service, as: reader, setting.replacingOccurrences(of: "FILE", with: file))
            #expect(checked.status == 0 && !(checked.stdout + checked.stderr).contains(file),
                    "\(recipe.place): `\(recipe.command)` made a file its reader (uid \(reader)) does not take:\n\(checked.stdout)\(checked.stderr)")
        }

        // The old recipe, for contrast: root's file of mode 600, which check-config names as unreadable by the service.
        let old = service.home + "/old-token"
        #expect(try await ToolRun("/bin/sh", ["-c", "openssl rand -hex 24 > \(old) && chmod 600 \(old)"]).status == 0)
        let refused = try await Self.checkConfig(service, as: Self.service, "mqtt: { host: 127.0.0.1, commands: { token_file: \(old) } }")
        #expect((refused.stdout + refused.stderr).contains("cannot read '\(old)': permission denied"), "\(refused.stdout)\(refused.stderr)")
    }

    /// `check-config` as `uid` on a config of one reader, one route and `setting`.
    static func checkConfig(_ service: PackagedService, as uid: uid_t, _ setting: String) async throws -> ToolRun {
        let config = service.home + "/secret-\(uid).yaml"
        try """
            readers: [{ name: front-door, device: "\(service.device)" }]
            \(setting)
            routes: [{ name: taps, actions: [log] }]
            """.write(toFile: config, atomically: true, encoding: .utf8)
        return try await service.run(as: uid, ["check-config", config])
    }
}
